//go:build linux

package stream_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http/httptrace"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
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

// peakHeap names a file to write a heap profile to when the streams in
// flight peak (the inuse figures of -memprofile, written at the end, are
// of a process whose streams are over).
var peakHeap = flag.String("openloop.heapprofile", "", "write a heap profile at the peak of BenchmarkOpenLoopMemory's streams in flight to `file`")

// BenchmarkOpenLoopMemory opens streams at an open loop's rate against a
// truth server that holds their first token, so that every stream is in
// flight at once (headers read, waiting for a token, as a long prefill or
// a queue keeps them), and reports the process's RSS above its idle
// baseline divided by the streams in flight (B/stream), and the shares of it that are heap
// objects (garbage included) and goroutine stacks. One
// iteration is one request; a run of streams=N sends N at a time.
//
//	go test -run '^$' -bench OpenLoopMemory -benchtime 10000x ./harness/stream/
func BenchmarkOpenLoopMemory(b *testing.B) {
	for _, streams := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			const rate = 2000 // req/s: 10,000 streams open in 5 s
			url := truthChild(b, truthCfg{ttft: 10 * time.Minute, tpot: 20 * time.Millisecond, tokens: 16})
			var sum rssReading
			batches := 0
			for done := 0; done < b.N; done += streams {
				r := openLoopRSS(b, url, streams, rate)
				sum.rss += r.rss
				sum.heap += r.heap
				sum.stacks += r.stacks
				sum.inFlight = max(sum.inFlight, r.inFlight)
				batches++
			}
			n := float64(batches)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(sum.rss/n, "B/stream")
			b.ReportMetric(sum.heap/n, "heap-B/stream")
			b.ReportMetric(sum.stacks/n, "stack-B/stream")
			b.ReportMetric(float64(sum.inFlight), "streams")
		})
	}
}

// rssReading is what a stream in flight holds: the process's RSS, its
// heap objects and its goroutine stacks above their idle baseline, divided
// by the streams then in flight.
type rssReading struct {
	rss, heap, stacks float64
	inFlight          int64
}

// openLoopRSS sends n streams at rate through a new client to a truth
// server that holds every first token, samples the RSS, the heap and the
// stacks every 10 ms from the moment all n have their headers for a second, and
// returns the highest reading above the idle baseline taken before the
// first request; then it cancels the streams.
func openLoopRSS(b *testing.B, url string, n int, rate float64) rssReading {
	c := stream.NewClient(stream.Endpoint{Name: "truth", BaseURL: url, Model: "m",
		Timeouts: stream.Timeouts{Headers: 10 * time.Minute, Idle: 10 * time.Minute, Total: 10 * time.Minute}})
	defer c.CloseIdle()
	// A stream is in flight from its first response byte (the headers)
	// to its end. The count is kept beside the request, not around it (a
	// Doer wrapping the client would add its frame, a sample's size, to
	// every stream's stack): a trace in the run's context, which the
	// client's own hooks compose with, and the runner's sink.
	var inFlight atomic.Int64
	ctx, cancel := context.WithCancel(httptrace.WithClientTrace(context.Background(),
		&httptrace.ClientTrace{GotFirstResponseByte: func() { inFlight.Add(1) }}))
	defer cancel()
	ended := load.Sink(func(s *sample.Sample) {
		if s.TTFB > 0 {
			inFlight.Add(-1)
		}
	})
	runtime.GC()
	debug.FreeOSMemory()
	baseRSS, baseHeap, baseStacks := rss(), heapObjects(), stacks()
	if baseRSS == 0 {
		b.Fatal("no VmRSS in /proc/self/status")
	}
	ran := make(chan []sample.Sample, 1)
	b.ResetTimer()
	go func() { ran <- load.NewRunner(ended).Run(ctx, c, hello(), load.Open{Rate: rate, Seed: 1}, n) }()

	var best rssReading
	var bestRSS uint64
	var all time.Time // when all n were first in flight
	open := time.Duration(float64(n) / rate * float64(time.Second))
	deadline := time.Now().Add(3*open + 30*time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for all.IsZero() || time.Since(all) < time.Second {
		<-tick.C
		if time.Now().After(deadline) {
			cancel()
			<-ran
			b.Fatalf("%d of %d streams had their headers after %v", inFlight.Load(), n, 3*open+30*time.Second)
		}
		f := inFlight.Load()
		if f < int64(n) {
			continue
		}
		if all.IsZero() {
			all = time.Now()
		}
		if r := rss(); r > bestRSS {
			perStream := func(v, base uint64) float64 { return float64(int64(v)-int64(base)) / float64(f) }
			best, bestRSS = rssReading{rss: perStream(r, baseRSS), heap: perStream(heapObjects(), baseHeap),
				stacks: perStream(stacks(), baseStacks), inFlight: f}, r
		}
	}
	b.StopTimer()
	g := runtime.NumGoroutine()
	b.Logf("%d streams: %d goroutines, %d B of stack each (new ones start with %d B)", n, g, stacks()/uint64(g), readMetric("/gc/stack/starting-size:bytes"))
	if *peakHeap != "" {
		writeHeap(b, *peakHeap)
	}
	cancel()
	samples := <-ran
	// Every stream had its headers and no token: all were open, held.
	for _, s := range samples {
		if s.Status != 200 || s.TTFT != 0 {
			b.Fatalf("request %d: status %d, ttft %v (%s: %s): want a stream open and waiting", s.Seq, s.Status, s.TTFT, s.ErrKind, s.Err)
		}
	}
	if len(samples) != n {
		b.Fatalf("%d samples of %d requests", len(samples), n)
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

func heapObjects() uint64 { return readMetric("/memory/classes/heap/objects:bytes") }
func stacks() uint64      { return readMetric("/memory/classes/heap/stacks:bytes") }

func readMetric(name string) uint64 {
	m := []metrics.Sample{{Name: name}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// writeHeap writes a heap profile to path, after a collection so that its
// inuse figures are the live heap's.
func writeHeap(b *testing.B, path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		b.Error(err)
		return
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Error(err)
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
