package stream

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// BenchmarkAPIEvent is BenchmarkStreamChunk's cost for each API's
// reader: line reading through the idle watch, event assembly and the
// reader's decode and timing, over an in-memory body of the API's
// typical text event (Responses' response.output_text.delta, Messages'
// content_block_delta text_delta, as their streaming references give
// them). One iteration is one event.
//
//	go test -run '^$' -bench 'APIEvent|StreamChunk' -benchmem ./harness/stream/
func BenchmarkAPIEvent(b *testing.B) {
	b.Run("api=responses", func(b *testing.B) {
		benchEvents(b, func() apiReader { return &responsesReader{} }, "", func(i int) string {
			return fmt.Sprintf("event: response.output_text.delta\ndata: "+
				`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":"word%d ","logprobs":[]}`, i, i)
		})
	})
	b.Run("api=messages", func(b *testing.B) {
		start := "event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n"
		benchEvents(b, func() apiReader { return &messagesReader{} }, start, func(i int) string {
			return fmt.Sprintf("event: content_block_delta\ndata: "+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word%d "}}`, i)
		})
	})
}

// benchEvents runs the stream loop with reader over bodies of head and
// 1000 events, one iteration an event.
func benchEvents(b *testing.B, reader func() apiReader, head string, event func(i int) string) {
	const perBody = 1000
	var body bytes.Buffer
	body.WriteString(head)
	ends := make([]int, perBody+1)
	for i := 0; i < perBody; i++ {
		ends[i] = body.Len()
		fmt.Fprintf(&body, "%s\n\n", event(i))
	}
	raw := body.Bytes()
	ends[perBody] = len(raw)
	idle := watchIdle(time.Hour, func() { b.Error("idle timeout fired") })
	defer idle.stop()
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += perBody {
		s := sample.Sample{}
		st := newStreamState(&s, time.Now(), 1<<20, 1<<20, nil)
		st.api = reader()
		body := raw[:max(ends[min(perBody, b.N-done)], len(head))]
		st.consume(newLineReader(idle.reader(bytes.NewReader(body)), 1<<20))
		if st.err != nil {
			b.Fatal(st.err)
		}
	}
}
