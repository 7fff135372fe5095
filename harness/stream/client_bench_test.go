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
	benchChunks(b, func(i int) string {
		return fmt.Sprintf(`{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"word%d "},"finish_reason":null}]}`, i)
	})
}

// BenchmarkToolCallChunk is the same over a tool call streamed as OpenAI
// frames it: the first chunk opens the call (id, name), every other one
// brings an argument fragment to assemble. One iteration is one chunk.
//
//	go test -run '^$' -bench ToolCallChunk -benchmem ./harness/stream/
func BenchmarkToolCallChunk(b *testing.B) {
	benchChunks(b, func(i int) string {
		const frame = `{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[%s]},"finish_reason":null}]}`
		if i == 0 {
			return fmt.Sprintf(frame, `{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"get_weather","arguments":""}}`)
		}
		return fmt.Sprintf(frame, fmt.Sprintf(`{"index":0,"function":{"arguments":"\"k%d\":1,"}}`, i))
	})
}

// benchChunks runs the stream loop over bodies of 1000 events, chunk(i)
// the data of the i-th, one iteration a chunk.
func benchChunks(b *testing.B, chunk func(i int) string) {
	const perBody = 1000
	var body bytes.Buffer
	ends := make([]int, perBody+1) // ends[k]: the length of the first k chunks
	for i := 0; i < perBody; i++ {
		ends[i] = body.Len()
		fmt.Fprintf(&body, "data: %s\n\n", chunk(i))
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
		if st.err != nil {
			b.Fatal(st.err)
		}
	}
}
