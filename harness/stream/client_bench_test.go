package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// BenchmarkStreamChunk measures the stream loop's own cost per chunk: line
// scanning, the token test and the JSON decode, over an in-memory body of
// typical OpenAI chunks. One iteration is one chunk.
//
//	go test -run '^$' -bench StreamChunk -benchmem ./harness/stream/
func BenchmarkStreamChunk(b *testing.B) {
	const perBody = 1000
	var body bytes.Buffer
	for i := 0; i < perBody; i++ {
		fmt.Fprintf(&body, `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"word%d "},"finish_reason":null}]}`+"\n\n", i)
	}
	raw := body.Bytes()
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += perBody {
		s := sample.Sample{}
		st := streamState{s: &s, t0: time.Now(), maxContent: 1 << 20}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for n := 0; sc.Scan() && n < 2*min(perBody, b.N-done); n++ {
			st.line(sc.Bytes())
		}
	}
}
