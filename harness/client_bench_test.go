package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
)

// BenchmarkStreamChunk measures the stream loop's own cost per chunk: line
// scanning, the token test and the JSON decode, over an in-memory body of
// typical OpenAI chunks. One iteration is one chunk.
//
//	go test -run '^$' -bench StreamChunk -benchmem ./harness/
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
		s := Sample{}
		st := streamState{s: &s, t0: time.Now(), maxContent: 1 << 20}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for n := 0; sc.Scan() && n < 2*min(perBody, b.N-done); n++ {
			st.line(sc.Bytes())
		}
	}
}

// BenchmarkMeasurementError runs 200 concurrent streams against the
// in-process simulator and reports how far the client's readings of the
// first and last token are from the instants the simulator wrote them (the
// truth), in microseconds. One iteration is one request.
//
//	go test -run '^$' -bench MeasurementError -benchtime 400x ./harness/
func BenchmarkMeasurementError(b *testing.B) {
	cfg := sim.Config{TTFT: 50 * time.Millisecond, TTFTJitter: 0.3, TPOT: 20 * time.Millisecond, TPOTJitter: 0.3, OutputTokens: 16, Seed: 3}
	srv, url := sim.Start(b, cfg)
	c := NewClient(Endpoint{Name: "sim", BaseURL: url, Model: "m"})
	defer c.CloseIdle()
	const conc = 200
	NewRunner(Concurrency(conc)).Run(context.Background(), c, hello(), conc) // fill the pool
	srv.Reset()
	b.ResetTimer()
	samples := NewRunner(Concurrency(conc)).Run(context.Background(), c, hello(), b.N)
	b.StopTimer()
	truth := map[string]sim.Truth{}
	for _, tr := range srv.Truth() {
		truth[tr.ID] = tr
	}
	var ttftErr, totalErr []float64
	for _, s := range samples {
		tr, ok := truth[s.ID]
		if !s.OK() || !ok {
			b.Fatalf("sample %d: %s (truth found: %v)", s.Seq, s.Err, ok)
		}
		us := func(got time.Time, want time.Time) float64 { return math.Abs(float64(got.Sub(want)) / 1e3) }
		ttftErr = append(ttftErr, us(s.Start.Add(s.TTFT), tr.FirstToken))
		totalErr = append(totalErr, us(s.Start.Add(s.Total), tr.Last))
	}
	te, to := stats.Summarize(ttftErr), stats.Summarize(totalErr)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(te.P50, "ttft-err-p50-us")
	b.ReportMetric(te.P95, "ttft-err-p95-us")
	b.ReportMetric(to.P50, "total-err-p50-us")
	b.ReportMetric(to.P95, "total-err-p95-us")
}
