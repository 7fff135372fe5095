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

// BenchmarkEmbeddingVector is the embeddings reader's cost beside
// BenchmarkAPIEvent's: one iteration is one vector of a body of 32 (one
// request's batch) at OpenAI's text-embedding-3-small dimension, 1536,
// decoded (fastEmbeddings), checked and summarised (readEmbeddings): 2
// allocations and ~200 µs a vector, where a chunk is ~1 µs. The body is read
// whole before it is decoded, so this is not in the request's total: it
// is the client's CPU per vector, which bounds the inputs/s one client
// can measure.
//
//	go test -run '^$' -bench 'EmbeddingVector' -benchmem ./harness/stream/
func BenchmarkEmbeddingVector(b *testing.B) {
	const inputs, dim = 32, 1536
	var body bytes.Buffer
	body.WriteString(`{"object":"list","data":[`)
	for i := range inputs {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"object":"embedding","index":%d,"embedding":[`, i)
		for d := range dim {
			if d > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, "%.10f", float64((i*7919+d*104729)%20011)/20011-0.5)
		}
		body.WriteString("]}")
	}
	body.WriteString(`],"model":"text-embedding-3-small","usage":{"prompt_tokens":256,"total_tokens":256}}`)
	raw := body.Bytes()
	b.SetBytes(int64(len(raw) / inputs))
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += inputs {
		var s sample.Sample
		if _, err := readEmbeddings(raw, inputs, &s); err != nil {
			b.Fatal(err)
		}
	}
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
