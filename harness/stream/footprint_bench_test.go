//go:build linux

package stream_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// The client's own footprint: what a stream costs the process that reads
// it. The truth server runs in a child process (this test binary again,
// TestTruthChild), so that the RSS and the CPU time read here are the
// client's alone, as they are for a user whose endpoint is elsewhere; with
// the simulator in-process, its own goroutine, buffers and records per
// stream would be counted as the client's.

// BenchmarkOpenLoopMemory opens streams at an open loop's rate against a
// truth server whose first token comes only after the last stream has
// opened, so that every stream is in flight at once, and reports the
// process's RSS above its idle baseline divided by the streams in flight
// (B/stream), read when they peak, and the live heap's share of it. One
// iteration is one request; a run of streams=N sends N at a time.
//
//	go test -run '^$' -bench OpenLoopMemory -benchtime 10000x ./harness/stream/
func BenchmarkOpenLoopMemory(b *testing.B) {
	for _, streams := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			const rate = 2000 // req/s: 10,000 streams open in 5 s
			open := time.Duration(float64(streams) / rate * float64(time.Second))
			url := truthChild(b, truthCfg{ttft: 2*open + 5*time.Second, tpot: 20 * time.Millisecond, tokens: 16})
			var perStream, heapPerStream, peak float64
			batches := 0
			for done := 0; done < b.N; done += streams {
				r := openLoopRSS(b, url, streams, rate)
				perStream += r.perStream
				heapPerStream += r.heapPerStream
				peak = max(peak, float64(r.inFlight))
				batches++
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(perStream/float64(batches), "B/stream")
			b.ReportMetric(heapPerStream/float64(batches), "heap-B/stream")
			b.ReportMetric(peak, "streams")
		})
	}
}

type rssReading struct {
	perStream, heapPerStream float64
	inFlight                 int64
}

// openLoopRSS sends n streams at rate through a new client, sampling the
// RSS, the live heap and the streams in flight every 10 ms, and returns the
// reading at the peak of streams in flight (the highest RSS among equal
// peaks), each above the idle baseline taken before the first request.
func openLoopRSS(b *testing.B, url string, n int, rate float64) rssReading {
	c := stream.NewClient(stream.Endpoint{Name: "truth", BaseURL: url, Model: "m",
		Timeouts: stream.Timeouts{Headers: time.Minute, Idle: time.Minute, Total: 2 * time.Minute}})
	defer c.CloseIdle()
	var inFlight atomic.Int64
	d := load.DoerFunc(func(ctx context.Context, req stream.Request) sample.Sample {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		return c.Do(ctx, req)
	})
	runtime.GC()
	debug.FreeOSMemory()
	baseRSS, baseHeap := rss(), liveHeap()
	if baseRSS == 0 {
		b.Fatal("no VmRSS in /proc/self/status")
	}
	var best rssReading
	var bestRSS uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			f, r := inFlight.Load(), rss()
			if f == 0 || f < best.inFlight || f == best.inFlight && r <= bestRSS {
				continue
			}
			best, bestRSS = rssReading{
				perStream:     float64(int64(r)-int64(baseRSS)) / float64(f),
				heapPerStream: float64(int64(liveHeap())-int64(baseHeap)) / float64(f),
				inFlight:      f,
			}, r
		}
	}()
	b.ResetTimer()
	samples := load.NewRunner().Run(context.Background(), d, hello(), load.Open{Rate: rate, Seed: 1}, n)
	b.StopTimer()
	close(stop)
	<-sampled
	failed := 0
	for _, s := range samples {
		if !s.OK() {
			failed++
			if failed == 1 {
				b.Errorf("request %d: %s: %s", s.Seq, s.ErrKind, s.Err)
			}
		}
	}
	if failed > 0 {
		b.Fatalf("%d of %d requests failed", failed, len(samples))
	}
	var lastStart, lastTTFT time.Duration
	for _, s := range samples {
		lastStart = max(lastStart, s.Offset)
		lastTTFT = max(lastTTFT, s.TTFB)
	}
	b.Logf("%d streams: the last sent %v in, the slowest headers after %v", n, lastStart, lastTTFT)
	if best.inFlight < int64(n)*9/10 {
		b.Fatalf("at most %d of %d streams were in flight at once: the truth answered before they had all opened", best.inFlight, n)
	}
	return best
}

// BenchmarkClientCPU reports the CPU time the client process spends per
// request (getrusage: user and system), over a closed loop of 200 streams
// against a truth server with a lognormal TTFT of median 200 ms and 64
// tokens 2 ms apart. One iteration is one request.
//
//	go test -run '^$' -bench ClientCPU -benchtime 1000x ./harness/stream/
func BenchmarkClientCPU(b *testing.B) {
	const conc = 200
	b.Run(fmt.Sprintf("streams=%d", conc), func(b *testing.B) {
		url := truthChild(b, truthCfg{ttft: 200 * time.Millisecond, ttftJitter: 0.3, tpot: 2 * time.Millisecond, tokens: 64})
		c := stream.NewClient(stream.Endpoint{Name: "truth", BaseURL: url, Model: "m"})
		defer c.CloseIdle()
		load.NewRunner().Run(context.Background(), c, hello(), load.Closed(conc), conc) // fill the pool
		runtime.GC()
		b.ResetTimer()
		cpu0 := cpuTime()
		samples := load.NewRunner().Run(context.Background(), c, hello(), load.Closed(conc), b.N)
		cpu := cpuTime() - cpu0
		b.StopTimer()
		for _, s := range samples {
			if !s.OK() {
				b.Fatalf("request %d: %s: %s", s.Seq, s.ErrKind, s.Err)
			}
		}
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(float64(cpu)/1e3/float64(b.N), "cpu-us/req")
	})
}

// truthCfg is the latency model the child serves (sim.Config's fields of
// the same names; TTFT jitter is lognormal).
type truthCfg struct {
	ttft, tpot time.Duration
	ttftJitter float64
	tokens     int
}

const truthEnv = "LLMSLA_TRUTH_CHILD"

// truthChild starts the simulator serving cfg in a child process and
// returns its base URL; the child ends when the benchmark does.
func truthChild(b *testing.B, cfg truthCfg) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTruthChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d,%g,%d", truthEnv, cfg.ttft, cfg.tpot, cfg.ttftJitter, cfg.tokens))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close() // the child serves until its stdin closes
		cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "truth: "); ok {
			go io.Copy(io.Discard, stdout)
			return u
		}
	}
	b.Fatalf("the truth child said no URL: %v", sc.Err())
	return ""
}

// TestTruthChild is truthChild's child: it serves the simulator until its
// stdin closes.
func TestTruthChild(t *testing.T) {
	spec := os.Getenv(truthEnv)
	if spec == "" {
		t.Skip("run by the footprint benchmarks")
	}
	f := strings.Split(spec, ",")
	ttft, _ := strconv.ParseInt(f[0], 10, 64)
	tpot, _ := strconv.ParseInt(f[1], 10, 64)
	jitter, _ := strconv.ParseFloat(f[2], 64)
	tokens, _ := strconv.Atoi(f[3])
	s := sim.New(sim.Config{TTFT: time.Duration(ttft), TTFTJitter: jitter, TPOT: time.Duration(tpot), OutputTokens: tokens, Seed: 1})
	url, stop, err := sim.Serve(s)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	fmt.Printf("truth: %s/v1\n", url)
	io.Copy(io.Discard, os.Stdin)
}

// rss is the process's resident set now (VmRSS), in bytes; 0 when
// /proc/self/status does not say.
func rss() uint64 {
	raw, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// liveHeap is the heap's objects and the goroutines' stacks, in bytes.
func liveHeap() uint64 {
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64() + m[1].Value.Uint64()
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
