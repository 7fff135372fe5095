// Package sdkbench measures the official SDKs' stream readers on the
// bodies of llmsla's BenchmarkAPIEvent (harness/stream/api_bench_test.go),
// the cost llmsla's own readers were chosen against. It is its own module
// under testdata (go ignores it, llmsla does not depend on the SDKs):
//
//	cp -r harness/stream/testdata/sdkbench /tmp/sdkbench && cd /tmp/sdkbench
//	go mod tidy && go test -run '^$' -bench SDKEvent -benchmem -count 3 .
package sdkbench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	assestream "github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

func body(head string, ev func(i int) string) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "%s\n\n", ev(i))
	}
	return b.Bytes()
}

func resp(b []byte) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(b))}
}

// BenchmarkSDKEvent: one iteration one event, the same bodies as
// llmsla's BenchmarkAPIEvent, through each SDK's stream (its SSE decoder
// and its event union's JSON decode), reading the delta as a reader would.
func BenchmarkSDKEvent(b *testing.B) {
	b.Run("sdk=openai-go/api=responses", func(b *testing.B) {
		raw := body("", func(i int) string {
			return fmt.Sprintf("event: response.output_text.delta\ndata: "+
				`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":"word%d ","logprobs":[]}`, i, i)
		})
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for done := 0; done < b.N; done += 1000 {
			s := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(resp(raw)), nil)
			for k := 0; k < min(1000, b.N-done) && s.Next(); k++ {
				ev := s.Current()
				if ev.Type == "response.output_text.delta" {
					n += len(ev.Delta)
				}
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk=anthropic-sdk-go/api=messages", func(b *testing.B) {
		head := "event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n"
		raw := body(head, func(i int) string {
			return fmt.Sprintf("event: content_block_delta\ndata: "+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word%d "}}`, i)
		})
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for done := 0; done < b.N; done += 1000 {
			s := assestream.NewStream[anthropic.MessageStreamEventUnion](assestream.NewDecoder(resp(raw)), nil)
			for k := 0; k < min(1000, b.N-done)+1 && s.Next(); k++ {
				ev := s.Current()
				if ev.Type == "content_block_delta" {
					n += len(ev.Delta.Text)
				}
			}
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
