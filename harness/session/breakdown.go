package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// Breakdown measures where the TTFT of the cell's scenario goes on its
// Ollama endpoint: the first n prompts of its level (breakdownSource), sent one at a time through Ollama's native API, whose final
// chunk carries the server's own timings. The configuration's secrets are
// redacted from its error and answers (a server may quote a header or key
// back). Unless fresh, a breakdown of the
// same n measured before for that scenario and endpoint is returned (go
// test's log of it after the levels); fresh measures anew and keeps
// nothing (a benchmark's each run measures its own).
func (s *Session) Breakdown(ctx context.Context, c Cell, n int, fresh bool) (ollama.Summary, error) {
	src, own, err := breakdownSource(c, n)
	if err != nil {
		return ollama.Summary{}, err
	}
	key := c.Scenario + "/" + c.Endpoint.Name + own
	if !fresh {
		if b, ok := s.bd.get(key); ok && b.N == n {
			return b, nil // measured already: the same requests, not again
		}
	}
	b, err := measureBreakdown(ctx, s.secrets, c.Endpoint, src, n)
	if err == nil && !fresh {
		s.bd.put(key, b)
	}
	return b, err
}

// breakdownSource is what a breakdown of c sends: its level's own prompts
// — a trace's rows (their own max_tokens), a synthetic prompt of the
// level's length — or else its fixture's, at the scenario's max tokens; and
// what keeps the level's breakdown apart ("" a fixture's, one per
// scenario × endpoint). A trace's 7 s TTFT is not explained by the 1 ms
// prefill of the fixture's short prompts.
func breakdownSource(c Cell, n int) (load.Source, string, error) {
	if tr, ok := c.Level.Pacer.(load.Trace); ok {
		src, err := tr.First(n)
		return src, "/" + string(c.Level.Label()), err
	}
	if c.Level.PromptTokens > 0 {
		return load.MaxTokens(load.NewSynthetic(c.Level.PromptTokens, c.Settings.Seed), c.Settings.MaxTokens), "/" + string(c.Level.Label()), nil
	}
	return load.MaxTokens(c.Fixture, c.Settings.MaxTokens), "", nil
}

// breakdowns are the breakdowns kept, by scenario/endpoint.
type breakdowns struct {
	mu sync.Mutex
	of map[string]ollama.Summary
}

func (b *breakdowns) get(key string) (ollama.Summary, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.of[key]
	return s, ok
}

func (b *breakdowns) put(key string, s ollama.Summary) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.of == nil {
		b.of = map[string]ollama.Summary{}
	}
	b.of[key] = s
}

func measureBreakdown(ctx context.Context, secrets *secret.Set, ep stream.Endpoint, src load.Source, n int) (ollama.Summary, error) {
	if ep.Kind != stream.KindOllama {
		return ollama.Summary{}, fmt.Errorf("endpoint %s is not kind: ollama", ep.Name)
	}
	reqs := make([]stream.Request, n)
	for i := range reqs {
		reqs[i] = src.Prompt(i).Request
	}
	b, err := ollama.Measure(ctx, ep, reqs)
	for i := range b.Results {
		b.Results[i].Content = secrets.Redact(b.Results[i].Content)
	}
	if err != nil {
		return b, errors.New(secrets.Redact(err.Error()))
	}
	return b, nil
}

// ServerFigures are a breakdown's means by the names of their rows in the
// metric table (the rows of kind Server), NaN where undefined (the server's
// decode rate of an answer of one token). A row of kind Server with no
// figure here, or a figure with no row, is an error: a figure left ungated.
func ServerFigures(bd ollama.Summary) (map[string]float64, error) {
	figs := map[string]float64{"load": stats.Ms(bd.Load), "prefill": stats.Ms(bd.Prefill), "netq": stats.Ms(bd.NetworkQueue), "server_tok": bd.ServerDecode}
	var errs []error
	rows := 0
	for _, m := range metric.Table {
		if m.Kind != metric.Server {
			continue
		}
		rows++
		if _, ok := figs[m.Name]; !ok {
			errs = append(errs, fmt.Errorf("metric %s (%s): the Ollama breakdown has no such figure", m.Name, m.BenchUnit))
		}
	}
	for name := range figs {
		if m := metric.ByName(name); m == nil || m.Kind != metric.Server {
			errs = append(errs, fmt.Errorf("Ollama breakdown figure %s: no row of kind Server in harness/metric's table", name))
		}
	}
	return figs, errors.Join(errs...)
}
