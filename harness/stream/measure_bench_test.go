package stream_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// BenchmarkMeasurementError runs 200 concurrent streams against the
// in-process simulator and reports how far the client's readings of the
// first and last token are from the instants the simulator wrote them (the
// truth), in microseconds. One iteration is one request.
//
//	go test -run '^$' -bench MeasurementError -benchtime 400x ./harness/stream/
func BenchmarkMeasurementError(b *testing.B) {
	cfg := sim.Config{TTFT: 50 * time.Millisecond, TTFTJitter: 0.3, TPOT: 20 * time.Millisecond, TPOTJitter: 0.3, OutputTokens: 16, Seed: 3}
	srv, url := sim.Start(b, cfg)
	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m"})
	defer c.CloseIdle()
	const conc = 200
	load.NewRunner().Run(context.Background(), c, hello(), load.Closed(conc), conc) // fill the pool
	srv.Reset()
	b.ResetTimer()
	samples := load.NewRunner().Run(context.Background(), c, hello(), load.Closed(conc), b.N)
	b.StopTimer()
	ttftErr, totalErr, err := srv.ReadingErrors(samples)
	if err != nil {
		b.Fatal(err)
	}
	te, to := stats.Describe(ttftErr), stats.Describe(totalErr)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(te.P50, "ttft-err-p50-us")
	b.ReportMetric(te.P95, "ttft-err-p95-us")
	b.ReportMetric(to.P50, "total-err-p50-us")
	b.ReportMetric(to.P95, "total-err-p95-us")
}
