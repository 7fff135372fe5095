package harness

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/stream"
)

// BreakdownRequests is how many requests Session.Run spends on the latency
// breakdown of each scenario on an Ollama endpoint.
const BreakdownRequests = 3

// Breakdown measures the latency breakdown of scenario sc on the session's
// endpoint named endpoint, with n of the scenario's prompts and its
// configured max tokens — or returns the one Session.Run already measured
// for that scenario and endpoint with n requests, rather than send them again.
func (s *Session) Breakdown(ctx context.Context, sc Scenario, endpoint string, n int) (ollama.Summary, error) {
	s.mu.Lock()
	b, ok := s.breakdowns[sc.Name+"/"+endpoint]
	s.mu.Unlock()
	if ok && b.N == n {
		return b, nil // Run measured it already: the same requests, not again
	}
	i := slices.IndexFunc(s.cfg.Endpoints, func(e stream.Endpoint) bool { return e.Name == endpoint })
	if i < 0 {
		return ollama.Summary{}, fmt.Errorf("no endpoint %q in %s", endpoint, s.cfg.Source)
	}
	src, err := s.source(sc)
	if err != nil {
		return ollama.Summary{}, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	return ollama.Measure(ctx, s.cfg.Endpoints[i], requests(src, s.cfg.Scenario(sc.Name, endpoint), n))
}

// requests are the first n requests of src with the scenario's max tokens.
func requests(src load.Source, conf config.Scenario, n int) []stream.Request {
	out := make([]stream.Request, n)
	for i := range out {
		out[i] = src.Prompt(i).Request
		out[i].MaxTokens = conf.MaxTokens
	}
	return out
}

// logBreakdown is Session.Run's hook: on an Ollama endpoint, log the
// scenario's breakdown after its runs. It is a diagnosis beside the
// verdict, so a failure to measure it is logged, not failed.
func (s *Session) logBreakdown(t *testing.T, scenario string, ep stream.Endpoint, conf config.Scenario, src load.Source) {
	t.Helper()
	if ep.Kind != "ollama" {
		return
	}
	b, err := ollama.Measure(context.Background(), ep, requests(src, conf, BreakdownRequests))
	if err != nil {
		t.Logf("breakdown: %s", s.secrets.Redact(err.Error()))
		return
	}
	t.Log(b.String())
	s.mu.Lock()
	s.breakdowns[scenario+"/"+ep.Name] = b
	s.mu.Unlock()
}

// reportBreakdown is Session.Bench's hook on an Ollama endpoint: the
// breakdown's means as benchmark figures, so that the gate sees a slower
// model load or prefill as such, not only as a slower TTFT.
func (s *Session) reportBreakdown(b *testing.B, ep stream.Endpoint, conf config.Scenario, src load.Source) {
	bd, err := ollama.Measure(context.Background(), ep, requests(src, conf, BreakdownRequests))
	if err != nil {
		b.Logf("breakdown: %s", s.secrets.Redact(err.Error()))
		return
	}
	b.ReportMetric(ms(bd.Load), "load-ms")
	b.ReportMetric(ms(bd.Prefill), "prefill-ms")
	b.ReportMetric(ms(bd.NetworkQueue), "netq-ms")
	if !math.IsNaN(bd.ServerDecode) {
		b.ReportMetric(bd.ServerDecode, "server-tok/s")
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
