package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/stream"
)

// BreakdownRequests is how many requests Session.Run spends on the latency
// breakdown of each scenario on an Ollama endpoint (and Session.Bench on
// each measured benchmark run).
const BreakdownRequests = 3

// Breakdown measures the latency breakdown of scenario sc on the session's
// endpoint named endpoint, with n of the scenario's prompts and its
// configured max tokens — or returns the one Session.Run already measured
// for that scenario and endpoint with n requests, rather than send them again.
// Its error and answers have the configuration's secrets redacted.
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
	return s.breakdown(ctx, s.cfg.Endpoints[i], s.cfg.Scenario(sc.Name, endpoint), src, n)
}

// breakdown sends the first n prompts of src, with the scenario's max
// tokens, through ep's native Ollama API, and returns their breakdown with
// the configuration's secrets redacted from its error and answers (a
// server may quote a header or key back).
func (s *Session) breakdown(ctx context.Context, ep stream.Endpoint, conf config.Scenario, src load.Source, n int) (ollama.Summary, error) {
	src = load.MaxTokens(src, conf.MaxTokens)
	reqs := make([]stream.Request, n)
	for i := range reqs {
		reqs[i] = src.Prompt(i).Request
	}
	b, err := ollama.Measure(ctx, ep, reqs)
	for i := range b.Results {
		b.Results[i].Content = s.secrets.Redact(b.Results[i].Content)
	}
	if err != nil {
		return b, errors.New(s.secrets.Redact(err.Error()))
	}
	return b, nil
}

// logBreakdown is Session.Run's hook: on an Ollama endpoint, log the
// scenario's breakdown after its runs. It is a diagnosis beside the
// verdict, so a failure to measure it is logged, not failed.
func (s *Session) logBreakdown(t *testing.T, scenario string, ep stream.Endpoint, conf config.Scenario, src load.Source) {
	t.Helper()
	if ep.Kind != "ollama" {
		return
	}
	b, err := s.breakdown(context.Background(), ep, conf, src, BreakdownRequests)
	if err != nil {
		t.Logf("breakdown: %v", err)
		return
	}
	t.Log(b.String())
	s.mu.Lock()
	s.breakdowns[scenario+"/"+ep.Name] = b
	s.mu.Unlock()
}

// reportBreakdown is Session.Bench's hook on an Ollama endpoint: the
// breakdown's means as benchmark figures, so that the gate sees a slower
// model load or prefill as such, not only as a slower TTFT. The figures
// are the metric table's rows of kind Server, in their units: a row with
// no figure here, or a figure with no row, fails the benchmark rather
// than leave a figure ungated.
func (s *Session) reportBreakdown(b *testing.B, ep stream.Endpoint, conf config.Scenario, src load.Source) {
	bd, err := s.breakdown(context.Background(), ep, conf, src, BreakdownRequests)
	if err != nil {
		b.Logf("breakdown: %v", err)
		return
	}
	figs := serverFigures(bd)
	for _, m := range metric.Table {
		if m.Kind != metric.Server {
			continue
		}
		v, ok := figs[m.Name]
		if !ok {
			b.Errorf("metric %s (%s): the Ollama breakdown has no such figure", m.Name, m.BenchUnit)
			continue
		}
		delete(figs, m.Name)
		if !math.IsNaN(v) { // server decode is undefined without two tokens
			b.ReportMetric(v, m.BenchUnit)
		}
	}
	for name := range figs {
		b.Errorf("Ollama breakdown figure %s: no row of kind Server in harness/metric's table", name)
	}
}

// serverFigures are a breakdown's means by the names of their rows in the
// metric table.
func serverFigures(bd ollama.Summary) map[string]float64 {
	return map[string]float64{"load": ms(bd.Load), "prefill": ms(bd.Prefill), "netq": ms(bd.NetworkQueue), "server_tok": bd.ServerDecode}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
