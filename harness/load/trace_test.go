package load_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
	"github.com/llmsla/llmsla/harness/trace"
)

// evenTrace writes a mooncake trace of n rows every gap, each asking
// input and output tokens, and returns its spec.
func evenTrace(tb testing.TB, n int, gap time.Duration, input, output int) trace.Spec {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "even.jsonl")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	tail := `, "input_length": ` + strconv.Itoa(input) + `, "output_length": ` + strconv.Itoa(output) + "}\n"
	for i := range n {
		w.WriteString(`{"timestamp": ` + strconv.FormatFloat(float64(time.Duration(i)*gap)/1e6, 'f', -1, 64) + tail)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return trace.Spec{File: p, Format: trace.Mooncake}
}

// BenchmarkTraceReplay is BenchmarkOpenLoopPacer's measurement for a
// trace: how late the replay sends at high rates against a request that
// does nothing, rows read from the file and prompts built as it goes.
// One iteration is one request (one row of an even trace at the rate).
//
//	go test -run '^$' -bench 'TraceReplay$|OpenLoopPacer' -benchtime 20000x ./harness/load/
func BenchmarkTraceReplay(b *testing.B) {
	noop := load.DoerFunc(func(context.Context, stream.Request) sample.Sample {
		return sample.Sample{Start: time.Now(), Finish: "stop"}
	})
	for _, rate := range []float64{200, 1000, 2000, 5000, 10000} {
		b.Run(fmt.Sprintf("rate=%g", rate), func(b *testing.B) {
			spec := evenTrace(b, b.N, time.Duration(float64(time.Second)/rate), 64, 16)
			tr, err := load.NewTrace(spec, 1)
			if err != nil {
				b.Fatal(err)
			}
			samples := load.NewRunner().Run(context.Background(), noop, tr.Source(), tr, b.N)
			lags := make([]float64, 0, len(samples))
			for _, s := range samples {
				lags = append(lags, float64(s.Lag)/1e3)
			}
			b.ReportMetric(0, "ns/op")
			st := stats.Describe(lags)
			b.ReportMetric(st.P50, "lag-p50-us")
			b.ReportMetric(st.P99, "lag-p99-us")
		})
	}
}

// TestTraceReplayMemory replays a trace of rows (a million; the
// benchmark below takes 10) as fast as it goes, every request a no-op,
// and holds the heap, sampled as it goes, under 64 MB: the file is
// streamed, never held, and a row's prompt lives while its request does.
func TestTraceReplayMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and replays a trace of a million rows")
	}
	peak := replayHeap(t, 1_000_000)
	if peak > 64<<20 {
		t.Errorf("heap peaked at %d MiB replaying the trace: want < 64 MiB", peak>>20)
	}
}

// BenchmarkTraceReplayMemory is TestTraceReplayMemory at 10 million rows.
//
//	go test -run '^$' -bench TraceReplayMemory -benchtime 1x ./harness/load/
func BenchmarkTraceReplayMemory(b *testing.B) {
	for range b.N {
		peak := replayHeap(b, 10_000_000)
		b.ReportMetric(float64(peak)/(1<<20), "heap-peak-MiB")
		b.ReportMetric(0, "ns/op")
	}
}

// replayHeap replays an even trace of n rows (1 µs apart at a speedup of
// 1,000: due as fast as they are read) with a send that asks each
// prompt and drops it, and returns the heap's peak over the replay.
func replayHeap(tb testing.TB, n int) uint64 {
	spec := evenTrace(tb, n, time.Millisecond, 32, 8)
	tr, err := load.NewTrace(spec, 1000)
	if err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	src := tr.Source()
	var sent atomic.Int64
	tr.Pace(context.Background(), n, func(i int, _ time.Time) {
		if p := src.Prompt(i); p.Request.MaxTokens != 8 {
			tb.Errorf("request %d: max_tokens %d, want the row's 8", i, p.Request.MaxTokens)
		}
		sent.Add(1)
	})
	close(stop)
	<-sampled
	if sent.Load() != int64(n) || tr.Err() != nil {
		tb.Fatalf("sent %d of %d rows (%v)", sent.Load(), n, tr.Err())
	}
	return peak.Load()
}
