package stream

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// BenchmarkStreamChunk measures the stream loop's own cost per chunk: line
// reading (through the idle watch, as in Client.stream), event assembly,
// the token test and the JSON decode, over an in-memory body of typical
// OpenAI chunks. One iteration is one chunk.
//
//	go test -run '^$' -bench StreamChunk -benchmem ./harness/stream/
func BenchmarkStreamChunk(b *testing.B) {
	const perBody = 1000
	var body bytes.Buffer
	ends := make([]int, perBody+1) // ends[k]: the length of the first k chunks
	for i := 0; i < perBody; i++ {
		ends[i] = body.Len()
		fmt.Fprintf(&body, `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"word%d "},"finish_reason":null}]}`+"\n\n", i)
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
		body := raw[:ends[min(perBody, b.N-done)]]
		st.consume(newLineReader(idle.reader(bytes.NewReader(body)), 1<<20))
	}
}
