package load_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

func hello() load.Source {
	return load.SourceFunc(func(i int) load.Prompt {
		return load.Prompt{Request: stream.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: fmt.Sprintf("hello %d", i)}}}}
	})
}

// cv is the coefficient of variation of the gaps between consecutive xs.
func gapCV(xs []time.Duration) (mean, cv float64) {
	gaps := make([]float64, 0, len(xs)-1)
	for i := 1; i < len(xs); i++ {
		gaps = append(gaps, float64(xs[i]-xs[i-1]))
	}
	d := stats.Describe(gaps)
	return d.Mean, d.Stddev / d.Mean
}

// TestScheduleShapes: the schedule has the requested mean rate and the
// spread of its arrival process (Poisson CV 1, constant 0, gamma 1/√k).
func TestScheduleShapes(t *testing.T) {
	cases := map[string]struct {
		o      load.Open
		cv, at float64 // expected CV and its tolerance
	}{
		"constant":             {load.Open{Rate: 20, Arrival: load.Constant}, 0, 1e-9},
		"poisson":              {load.Open{Rate: 20, Arrival: load.Poisson, Seed: 1}, 1, 0.1},
		"gamma bursty":         {load.Open{Rate: 20, Arrival: load.Gamma, Burstiness: 0.25, Seed: 2}, 2, 0.3},
		"gamma regular":        {load.Open{Rate: 20, Arrival: load.Gamma, Burstiness: 4, Seed: 3}, 0.5, 0.06},
		"gamma k=1 is poisson": {load.Open{Rate: 20, Arrival: load.Gamma, Burstiness: 1, Seed: 4}, 1, 0.1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := tc.o.Schedule(4000)
			mean, cv := gapCV(append([]time.Duration{0}, s...))
			if want := float64(50 * time.Millisecond); math.Abs(mean-want) > 0.05*want {
				t.Errorf("mean gap %v, want 50ms ± 5%%", time.Duration(mean))
			}
			if math.Abs(cv-tc.cv) > tc.at {
				t.Errorf("gap CV %.3f, want %.2f ± %.2f", cv, tc.cv, tc.at)
			}
			if !slices.Equal(s, tc.o.Schedule(4000)) {
				t.Error("the same seed gave another schedule")
			}
		})
	}
}

// TestOpenLoopOnSimulator: a Poisson rate of 20 req/s over 400 requests
// against the simulator achieves 20 ± 1 req/s, with sending gaps as spread
// as Poisson arrivals are (CV 0.9–1.1), and the client keeps its schedule.
func TestOpenLoopOnSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("20 s of open-loop load")
	}
	_, url := sim.Start(t, sim.Config{TTFT: 30 * time.Millisecond, TPOT: 5 * time.Millisecond, OutputTokens: 8, Seed: 5})
	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m"})
	defer c.CloseIdle()
	o := load.Open{Rate: 20, Arrival: load.Poisson, Seed: 42}
	samples := load.NewRunner().Run(context.Background(), c, hello(), o, 400)
	if len(samples) != 400 {
		t.Fatalf("%d samples, want 400", len(samples))
	}
	st := stats.Summarize(samples, nil)
	starts := make([]time.Duration, len(samples))
	for i, s := range samples {
		if !s.OK() || !s.Scheduled() {
			t.Fatalf("sample %d: ok %v scheduled %v: %s", i, s.OK(), s.Scheduled(), s.Err)
		}
		starts[i] = s.Offset
	}
	slices.Sort(starts)
	_, cv := gapCV(starts)
	t.Logf("achieved %.2f req/s, gap CV %.3f, lag p50/p95/p99 %.3f/%.3f/%.3f ms", st.Open.Achieved, cv, st.Open.Lag.P50, st.Open.Lag.P95, st.Open.Lag.P99)
	if math.Abs(st.Open.Achieved-20) > 1 {
		t.Errorf("achieved %.2f req/s, want 20 ± 1", st.Open.Achieved)
	}
	// The pacer is judged against its own schedule (seeded, so the same
	// each time); the schedule against the rate asked, above.
	if math.Abs(st.Open.Achieved/st.Open.Planned-1) > 0.02 {
		t.Errorf("sent at %.2f req/s, scheduled %.2f: want within 2%%", st.Open.Achieved, st.Open.Planned)
	}
	if cv < 0.9 || cv > 1.1 {
		t.Errorf("inter-arrival CV %.3f, want 0.9–1.1", cv)
	}
	if st.Open.Lag.P50 > 10 {
		t.Errorf("lag p50 %.2f ms: the pacer does not keep its schedule", st.Open.Lag.P50)
	}
}

// TestCoordinatedOmission is wrk2's demonstration: one request stalls for
// a second while at most one request may be in flight, so the requests due
// during the stall queue behind it. Latencies from each request's actual
// start hide the stall (each, once sent, is fast); latencies from the
// scheduled start show it, as the users who arrived then saw it.
func TestCoordinatedOmission(t *testing.T) {
	const stall = time.Second
	fake := load.DoerFunc(func(ctx context.Context, req stream.Request) sample.Sample {
		s := sample.Sample{Start: time.Now(), Finish: "stop", OutputTokens: 2}
		d := time.Millisecond
		if req.Messages[0].Content == "hello 20" {
			d = stall
		}
		time.Sleep(d)
		s.TTFT, s.Total = time.Since(s.Start), time.Since(s.Start)
		return s
	})
	o := load.Open{Rate: 100, Arrival: load.Constant, MaxConcurrency: 1}
	samples := load.NewRunner().Run(context.Background(), fake, hello(), o, 200)
	st := stats.Summarize(samples, nil)
	t.Logf("total p99 from t0 %.1f ms, from tsched %.1f ms; lag p99 %.1f ms", st.Total.P99, st.Open.TotalSched.P99, st.Open.Lag.P99)
	if st.Total.P99 > 50 {
		t.Errorf("total p99 from t0 %.1f ms: want it to hide the stall (< 50 ms)", st.Total.P99)
	}
	// The hundred requests due during the one-second stall waited up to a
	// second each: their scheduled-start latency p99 is most of it.
	if st.Open.TotalSched.P99 < 0.5*ms(stall) || st.Open.TotalSched.Max < 0.9*ms(stall) {
		t.Errorf("total from tsched p99 %.1f ms, max %.1f ms: want the stall to show (p99 ≥ %.0f ms, max ≥ %.0f ms)",
			st.Open.TotalSched.P99, st.Open.TotalSched.Max, 0.5*ms(stall), 0.9*ms(stall))
	}
	if st.Open.Lag.P99 < 0.5*ms(stall) {
		t.Errorf("lag p99 %.1f ms: the queued requests' lateness is not recorded", st.Open.Lag.P99)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkOpenLoopPacer measures the pacer's own limit: how late it sends
// at high rates against a request that does nothing, so that only the
// schedule-keeping is timed. One iteration is one request.
//
//	go test -run '^$' -bench OpenLoopPacer -benchtime 20000x ./harness/load/
func BenchmarkOpenLoopPacer(b *testing.B) {
	noop := load.DoerFunc(func(context.Context, stream.Request) sample.Sample {
		return sample.Sample{Start: time.Now(), Finish: "stop"}
	})
	src := load.SourceFunc(func(int) load.Prompt { return load.Prompt{} })
	// wait=yield is the pacer without a thread sleep (yields through the
	// last 2 ms before each instant); wait=sleep the default, side by side.
	waits := []struct {
		name  string
		sleep func(time.Duration)
	}{{"sleep", load.ThreadSleep()}, {"yield", nil}}
	for _, rate := range []float64{200, 1000, 5000, 10000, 20000, 50000} {
		for _, w := range waits {
			if w.name == "sleep" && w.sleep == nil {
				continue // no thread sleep on this platform
			}
			b.Run(fmt.Sprintf("rate=%g/wait=%s", rate, w.name), func(b *testing.B) {
				defer load.SetThreadSleep(w.sleep)()
				paced(b, noop, src, rate)
			})
		}
	}
}

// BenchmarkPacerMeasurementError: what the pacer's wait costs the
// measurement. An open loop at 400 req/s of streams against the in-process
// simulator, the last stretch before each instant slept (wait=sleep, the
// default) or yielded (wait=yield, a core held), side by side; reported:
// how far the client's first and last token readings are from the instants
// the simulator wrote them, the schedule lag, and the CPU used.
//
//	go test -run '^$' -bench PacerMeasurementError -benchtime 2000x -count 5 ./harness/load/
func BenchmarkPacerMeasurementError(b *testing.B) {
	cfg := sim.Config{TTFT: 50 * time.Millisecond, TTFTJitter: 0.3, TPOT: 5 * time.Millisecond, TPOTJitter: 0.3, OutputTokens: 16, Seed: 3}
	for _, w := range []struct {
		name  string
		sleep func(time.Duration)
	}{{"sleep", load.ThreadSleep()}, {"yield", nil}} {
		if w.name == "sleep" && w.sleep == nil {
			continue
		}
		b.Run("wait="+w.name, func(b *testing.B) {
			defer load.SetThreadSleep(w.sleep)()
			srv, url := sim.Start(b, cfg)
			c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m"})
			defer c.CloseIdle()
			load.NewRunner().Run(context.Background(), c, hello(), load.Closed(64), 64) // fill the pool
			srv.Reset()
			samples, _ := paced(b, c, hello(), 400)
			ttftErr, totalErr, err := srv.ReadingErrors(samples)
			if err != nil {
				b.Fatal(err)
			}
			te, to := stats.Describe(ttftErr), stats.Describe(totalErr)
			b.ReportMetric(te.P50, "ttft-err-p50-us")
			b.ReportMetric(te.P95, "ttft-err-p95-us")
			b.ReportMetric(to.P95, "total-err-p95-us")
		})
	}
}

// BenchmarkPacerHTTP is the pacer's limit with real requests: an
// open loop of streams against the in-process simulator answering at once
// (no TTFT, one token), the client and server sharing the machine. The
// highest rate whose lag p99 stays within 1 ms is the most this client
// sends on time here.
//
//	go test -run '^$' -bench PacerHTTP -benchtime 5000x ./harness/load/
func BenchmarkPacerHTTP(b *testing.B) {
	for _, rate := range []float64{500, 1000, 2000, 5000, 10000, 20000} {
		b.Run(fmt.Sprintf("rate=%g", rate), func(b *testing.B) {
			srv, url := sim.Start(b, sim.Config{OutputTokens: 1, Seed: 1})
			c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m"})
			defer c.CloseIdle()
			load.NewRunner().Run(context.Background(), c, hello(), load.Closed(32), 32) // fill the pool
			srv.Reset()
			_, st := paced(b, c, hello(), rate)
			b.ReportMetric(100*float64(st.Failed)/float64(max(1, st.Attempted)), "err-%")
		})
	}
}

// paced sends b.N requests through d in an open loop at rate (Poisson,
// seeded) and reports the schedule lag, the achieved share of the rate
// and the CPU the process used over the run.
func paced(b *testing.B, d load.Doer, src load.Source, rate float64) ([]sample.Sample, *stats.Stats) {
	o := load.Open{Rate: rate, Arrival: load.Poisson, Seed: 1}
	cpu0, t0 := cpuTime(), time.Now()
	samples := load.NewRunner().Run(context.Background(), d, src, o, b.N)
	cpu, wall := cpuTime()-cpu0, time.Since(t0)
	st := stats.Summarize(samples, nil)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(1000*st.Open.Lag.P50, "lag-p50-us")
	b.ReportMetric(1000*st.Open.Lag.P99, "lag-p99-us")
	b.ReportMetric(st.Open.Achieved/rate, "achieved/requested")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
	return samples, st
}
