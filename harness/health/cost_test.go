package health_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// BenchmarkProbeCost is what the health probe costs the client: a level
// of streams at concurrency 8 against the in-process simulator (TTFT 5
// ms, 16 tokens 1 ms apart), without the probe (probe=off), with the
// probe and a window over the level (on), and with the window also
// profiling the simulator's share of the CPU (sim, as a session with an
// in-process simulator does): the process's CPU a request side by side.
// One iteration is one request.
//
//	go test -run '^$' -bench ProbeCost -benchtime 400x -count 6 ./harness/health/ | benchstat -col /probe -
func BenchmarkProbeCost(b *testing.B) {
	for _, mode := range []string{"off", "on", "sim"} {
		on := mode != "off"
		b.Run("probe="+mode, func(b *testing.B) {
			cfg := sim.Default()
			cfg.TTFT, cfg.TPOT, cfg.OutputTokens = 5*time.Millisecond, time.Millisecond, 16
			_, url := sim.Start(b, cfg)
			c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m"})
			defer c.CloseIdle()
			src := load.SourceFunc(func(i int) load.Prompt {
				return load.Prompt{Request: stream.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}}}
			})
			r := load.NewRunner()
			r.Run(context.Background(), c, src, load.Closed(8), 16) // the connections
			var p *health.Probe
			if on {
				var label []health.SimLabel
				if mode == "sim" {
					label = append(label, health.SimLabel{Key: sim.LabelKey, Value: sim.LabelValue})
				}
				p = health.Start(label...)
				defer p.Stop()
			}
			cpu0 := cpuTime()
			b.ResetTimer()
			var w *health.Window
			if on {
				w = p.Begin()
			}
			r.Run(context.Background(), c, src, load.Closed(8), b.N)
			if on {
				w.End()
			}
			b.StopTimer()
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/req")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
