package harness

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// BenchOn is Bench on session s's endpoints.
func BenchOn(b *testing.B, s *session.Session, sc Scenario) {
	b.Helper()
	src := mustSource(b, s, sc)
	cfg := s.Config()
	logJudgeNote(b, s, sc)
	printUnits.Do(func() { PrintBenchHeader(os.Stdout, cfg) })
	for _, ep := range cfg.Endpoints {
		if _, skip := skipped.Load(sc.Name + "/" + ep.Name); skip {
			continue // the endpoint cannot serve it: llmsla bench says so
		}
		if _, unfit := session.Unfit(sc, ep); unfit {
			continue // its API cannot serve it: llmsla bench says so (Unserved)
		}
		base := session.Cell{Scenario: sc.Name, Endpoint: ep, Settings: cfg.Scenario(sc.Name, ep.Name), Fixture: src}
		// The measured runs of each level, in order: reps[k] holds the
		// k-th run (the k-th -count repetition) of every level.
		var reps [][]objective.Verdict
		for _, lv := range base.Settings.Levels() {
			c := base
			c.Level = lv
			rep := 0
			runs := s.Repeat(c, benchCount())
			b.Run(fmt.Sprintf("endpoint=%s/%s", sample.NameValue(ep.Name), lv.Label()), func(b *testing.B) {
				if runs.Done() {
					reportUnsent(b)
					return
				}
				v, measured := benchLevel(b, s, runs)
				if !measured {
					return
				}
				if rep == len(reps) {
					reps = append(reps, nil)
				}
				reps[rep] = append(reps[rep], v)
				rep++
			})
		}
		benchWholeRun(b, ep, reps)
		if base.Settings.Capacity != nil {
			benchCapacity(b, s, base)
		}
		if base.Settings.Sweep != nil {
			benchSweep(b, s, base)
		}
	}
	logJudgeReport(b, s)
}

var printUnits sync.Once

// benchLevel is one call of a level's benchmark: go test's probe (b.N = 1,
// before the timed run of -benchtime Nx: its request is warm-up), or a
// measured run of b.N requests (a soak: its duration, whatever -benchtime
// says), reported in the metric table's units.
func benchLevel(b *testing.B, s *session.Session, runs *session.Repeats) (v objective.Verdict, measured bool) {
	c := runs.Cell()
	var samples []sample.Sample
	var err error
	if b.N == 1 {
		samples, err = runs.Probe(context.Background())
	} else {
		n := b.N
		if c.Settings.Span(c.Level) > 0 {
			n = c.Settings.Requests(c.Level) // a soak, a ramp: their time, whatever -benchtime says
		}
		samples, err = runs.Measure(context.Background(), n)
	}
	if err != nil {
		failSend(b, c.Name(), err)
	}
	v = objective.JudgeServer(samples, c.Settings.Objectives, s.Concerns().Beside(samples))
	ReportMetrics(b, v.Stats)
	if f, ok := s.Concerns().Health.Of(samples); ok {
		ReportHealth(b, f)
	}
	if c.Endpoint.Kind == stream.KindOllama && b.N > 1 {
		reportBreakdown(b, s, c)
	}
	return v, b.N > 1
}

// benchCount is the runs go test makes of each benchmark, -count, when
// each is one call of b.N requests (-benchtime Nx, as llmsla bench runs
// them): the runs a level's repetitions decide over (session.Repeats). A
// time-based -benchtime calls a benchmark more often than -count, so its
// runs each decide alone (1).
func benchCount() int {
	bt, c := flag.Lookup("test.benchtime"), flag.Lookup("test.count")
	if bt == nil || c == nil || !strings.HasSuffix(bt.Value.String(), "x") {
		return 1
	}
	n, err := strconv.Atoi(c.Value.String())
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// reportUnsent is a call of a level's benchmark once its runs before
// decided it (stop: decided): the probe sends nothing, and the run
// reports recording.UnitUnsent alone — go test prints a result for it —
// which no reader counts as a run.
func reportUnsent(b *testing.B) {
	if b.N == 1 {
		return
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(1, recording.UnitUnsent)
}

// benchWholeRun reports the figures of a scenario's whole run on an
// endpoint (the prefill fit of a prompt-length sweep) as one more
// benchmark, endpoint=<name>/fit=prompt_tokens, after its levels. Each of
// its -count repetitions fits its own runs (the k-th run of every level),
// so that the gate sees the fit vary from run to run as it does, rather
// than one fit of everything repeated.
func benchWholeRun(b *testing.B, ep stream.Endpoint, reps [][]objective.Verdict) {
	fit := func(k int) *stats.Stats {
		if k >= len(reps) {
			return nil
		}
		// CheckRuns fills the whole run's figures into each verdict's
		// Stats. Its violations are not judged here: llmsla bench judges
		// the samples.
		objective.CheckRuns(reps[k])
		if st := reps[k][len(reps[k])-1].Stats; st.Prefill.N > 0 {
			return st
		}
		return nil // no sweep of two or more prompt lengths: no fit
	}
	if fit(0) == nil {
		return
	}
	// The runs every level sent: under stop: decided a level's runs left
	// once it was decided send nothing, and a fit of the others' would be
	// another fit. Those runs of the fit are unsent too.
	whole := 0
	for whole < len(reps) && len(reps[whole]) == len(reps[0]) {
		whole++
	}
	k := 0
	b.Run(fmt.Sprintf("endpoint=%s/fit=prompt_tokens", sample.NameValue(ep.Name)), func(b *testing.B) {
		if b.N == 1 {
			return // go test's probe before each repetition
		}
		if k >= whole && benchCount() > whole {
			k++
			reportUnsent(b)
			return
		}
		// Under -benchtime Nx (llmsla bench) go test calls this once per
		// repetition; a time-based benchtime calls it more often, and
		// the calls past the last repetition report the last one's fit.
		st := fit(min(k, whole-1))
		k++
		if st == nil {
			b.Fatalf("fit=prompt_tokens: run %d of the sweep's levels has fewer than two prompt lengths to fit", min(k, len(reps)))
		}
		reportUnits(b, st, true)
	})
}

// benchCapacity searches for the scenario's capacity on an endpoint, as one
// benchmark (endpoint=prod/capacity=rate) reporting max-rps (or
// max-concurrency), so that the gate can block a deploy that lowers it.
// Every step's samples are recorded, labelled search=capacity.
func benchCapacity(b *testing.B, s *session.Session, c session.Cell) {
	cs := c.Settings.Capacity
	b.Run(fmt.Sprintf("endpoint=%s/capacity=%s", sample.NameValue(c.Endpoint.Name), cs.By), func(b *testing.B) {
		if b.N == 1 {
			return // go test's probe: a search is not something to try once
		}
		r, err := s.Capacity(context.Background(), c)
		if err != nil {
			failSend(b, fmt.Sprintf("capacity search (%s endpoint=%s)", c.Scenario, c.Endpoint.Name), err)
		}
		b.Log(report.CapacityLine(c.Scenario, c.Endpoint.Name, cs.By, cs.Resolution, r))
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(r.Limit, cs.Unit())
	})
}

// benchSweep runs the scenario's sweep on an endpoint, as one benchmark
// (endpoint=prod/sweep=streamtomax) reporting the highest rate that held
// as max-rps, so that the gate sees it fall. Every step's samples are
// recorded, labelled search=sweep, and the line that says what it found
// is logged.
func benchSweep(b *testing.B, s *session.Session, c session.Cell) {
	b.Run(fmt.Sprintf("endpoint=%s/sweep=%s", sample.NameValue(c.Endpoint.Name), c.Settings.Sweep), func(b *testing.B) {
		if b.N == 1 {
			return // go test's probe: a sweep is not something to try once
		}
		r, err := s.Sweep(context.Background(), c)
		if err != nil {
			failSend(b, fmt.Sprintf("sweep (%s endpoint=%s)", c.Scenario, c.Endpoint.Name), err)
		}
		b.Log(report.SweepLine(c.Scenario, c.Endpoint.Name, r))
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(r.Limit, metric.ByName("max_rps").BenchUnit)
	})
}

// logBreakdown is RunOn's hook: on an Ollama endpoint, log the scenario's
// breakdown after its levels. It is a diagnosis beside the verdict, so a
// failure to measure it is logged, not failed.
func logBreakdown(t *testing.T, s *session.Session, c session.Cell) {
	t.Helper()
	if c.Endpoint.Kind != stream.KindOllama {
		return
	}
	b, err := s.Breakdown(context.Background(), c, session.BreakdownRequests, false)
	if err != nil {
		t.Logf("breakdown: %s", escape.Text(err.Error()))
		return
	}
	t.Log(b.String())
}

// reportBreakdown is BenchOn's hook on an Ollama endpoint: the breakdown's
// means as benchmark figures, so that the gate sees a slower model load or
// prefill as such, not only as a slower TTFT. A row of the metric table of
// kind Server without a figure, or a figure without a row, fails the
// benchmark rather than leave a figure ungated.
func reportBreakdown(b *testing.B, s *session.Session, c session.Cell) {
	bd, err := s.Breakdown(context.Background(), c, session.BreakdownRequests, true)
	if err != nil {
		b.Logf("breakdown: %s", escape.Text(err.Error()))
		return
	}
	figs, err := session.ServerFigures(bd)
	if err != nil {
		b.Error(err)
	}
	for name, v := range figs {
		if m := metric.ByName(name); m != nil && !math.IsNaN(v) { // server decode is undefined without two tokens
			b.ReportMetric(v, m.BenchUnit)
		}
	}
}

// PrintBenchHeader writes the unit metadata of every benchmark unit in the
// metric table and, per endpoint, its model and host as benchfmt
// configuration lines (never its key or full URL).
func PrintBenchHeader(w io.Writer, cfg *config.Config) {
	for _, u := range metric.Units() {
		fmt.Fprintf(w, "Unit %s better=%s\n", u.Unit(), u.Better())
	}
	for _, u := range health.Units {
		fmt.Fprintf(w, "Unit %s better=%s\n", u.Name, u.Better())
	}
	for _, ep := range cfg.Endpoints {
		fmt.Fprintf(w, "endpoint.%s.model: %s\n", sample.NameValue(ep.Name), ep.Model)
		fmt.Fprintf(w, "endpoint.%s.host: %s\n", sample.NameValue(ep.Name), host(ep))
	}
	if len(cfg.Endpoints) == 1 {
		// One endpoint: the plain keys too, as benchstat users expect them.
		ep := cfg.Endpoints[0]
		fmt.Fprintf(w, "endpoint: %s\nmodel: %s\nhost: %s\n", ep.Name, ep.Model, host(ep))
	}
}

// host is the endpoint's host, the only part of its URL a report shows.
func host(ep stream.Endpoint) string {
	if ep.Simulated {
		return "built-in simulator"
	}
	if u, err := url.Parse(ep.BaseURL); err == nil {
		return u.Host
	}
	return "(unparsable URL)"
}

// ReportMetrics reports every measured figure of st in its benchmark unit,
// and hides the meaningless ns/op (one iteration is one request, and
// requests overlap). A figure that was not measured is not reported, never
// as 0.
func ReportMetrics(b *testing.B, st *stats.Stats) { reportUnits(b, st, false) }

// reportUnits reports the measured figures of st that belong to one level
// (wholeRun false) or to the whole run over every level (true), and ns/op
// as 0.
// ReportHealth reports the client's health over a measured run in its
// units (health.Units): the results file records whether the client kept
// time, and the verdict, the gate and baseline read it back.
func ReportHealth(b *testing.B, f health.Figures) {
	for _, u := range health.Units {
		if u.Has == nil || u.Has(f) {
			b.ReportMetric(u.Of(f), u.Name)
		}
	}
}

func reportUnits(b *testing.B, st *stats.Stats, wholeRun bool) {
	b.ReportMetric(0, "ns/op")
	for _, u := range metric.Units() {
		if v, ok := u.Bench(st); ok && u.WholeRun == wholeRun {
			b.ReportMetric(v, u.Unit())
		}
	}
}
