package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/stream"
)

// plan is what a bench will send, computed before the first request from
// the configuration, the benchmarks -bench matches and go test's -count
// and -benchtime: per scenario × endpoint, its levels (the cells) and
// requests, and — once each has been probed — how long it should take.
type plan struct {
	g    goTest
	run  session.Run
	rows []planRow
	// provenance is what the run measures beyond its figures, probed
	// beside the preflight (session.Session.Provenance).
	provenance sample.Provenance
}

// planRow is one scenario on one endpoint.
type planRow struct {
	cell     session.Cell // Level unset: the row is every level
	levels   []config.Level
	measured int // measured requests, over every level and run (0: a soak's, by time)
	other    int // go test's probes, the cold request, warm-ups, breakdowns
	soak     time.Duration
	capacity bool
	sweep    bool
	// steps is the most requests one measured prompt sends: an agent
	// loop's max_steps (the model decides how many it takes), 1 without
	// loops; measured counts every loop at its most.
	steps    int
	latency  time.Duration // one request, probed (0: not probed)
	think    time.Duration // the fixture's think time a request, at a level of conversations
	expected time.Duration // 0: not known
}

// newPlan lays out the run of the benched scenarios on every endpoint,
// their fixtures by scenario (a fixture of agent loops sends up to its
// max_steps requests a prompt).
func newPlan(cfg *config.Config, run session.Run, g goTest, benched []session.Scenario, fixtures map[string]*load.Fixture) *plan {
	p := &plan{g: g, run: run}
	for _, sc := range benched {
		steps := 1
		if f := fixtures[sc.Name]; f != nil {
			steps = f.Steps()
		}
		for _, ep := range cfg.Endpoints {
			conf := cfg.Scenario(sc.Name, ep.Name)
			r := planRow{cell: session.Cell{Scenario: sc.Name, Endpoint: ep, Settings: conf}, levels: conf.Levels(),
				capacity: conf.Capacity != nil, steps: steps}
			r.count(g, run.Shard)
			p.rows = append(p.rows, r)
		}
	}
	return p
}

// count adds up the row's requests as the session sends them (a measured
// agent loop at its max_steps, an upper bound; its cold request, warm-up
// and probes send its first step alone): the run's
// cold request and warm-up with its first probe; each level's connection
// warm-up (as many as its workers) with its own first probe; then per
// -count repetition go test's probe (b.N = 1, one request) and the
// measured b.N (a shard its share; a level its time bounds — a soak, a
// ramp — what its load sends in that time); on an Ollama endpoint a
// breakdown of session.BreakdownRequests after each measured run.
func (r *planRow) count(g goTest, shard load.Shard) {
	conf := r.cell.Settings
	r.other = 1 // the cold request
	r.countSweep(g)
	for i, lv := range r.levels {
		warm := 0
		if i == 0 {
			warm = conf.Warmup
		}
		if p, err := shard.Pacer(lv.Pacer); err == nil {
			warm = max(warm, p.Workers())
		}
		r.other += warm + session.WarmingRequests(conf.Cache, 2*g.count, warm) // a probe and a measured run per repetition
		r.other += g.count                                                     // probes
		if r.cell.Endpoint.Kind == stream.KindOllama {
			r.other += g.count * session.BreakdownRequests
		}
		span := conf.Span(lv)
		switch n, ok := lv.Pacer.Requests(span); {
		case span > 0 && !ok: // a closed-loop soak: its time decides
			r.soak += time.Duration(g.count) * span
		case span > 0:
			r.measured += g.count * shard.Share(n) * r.steps
		default:
			r.measured += g.count * shard.Share(g.n) * r.steps
		}
	}
}

// countSweep adds a sweep's requests: per -count repetition each step's
// samples, and once — the first time a step's level runs — the
// connections its closed-loop steps open (one stream, then Saturate in
// flight) and its open-loop steps' cap.
func (r *planRow) countSweep(g goTest) {
	w := r.cell.Settings.Sweep
	if w == nil {
		return
	}
	r.sweep = true
	samples := r.cell.Settings.Samples
	r.measured += g.count * w.Requests(samples)
	// Open-loop steps at rates measured anew each repetition are new
	// levels each time; the closed-loop ends are the same levels.
	r.other += g.count * w.Steps * r.cell.Settings.MaxConcurrency
	if w.From == 0 {
		r.other++
	}
	if w.To == 0 {
		r.other += w.Saturate
	}
}

// check reports a level whose schedule, at the -n requests a run sends,
// would take more than a day (config checks the file's own counts).
func (r *planRow) check(g goTest) error {
	for _, lv := range r.levels {
		if r.cell.Settings.Span(lv) > 0 {
			continue
		}
		if err := r.cell.Settings.CheckExpected(lv, g.n); err != nil {
			return fmt.Errorf("%s endpoint=%s: %w (-n %d)", r.cell.Scenario, r.cell.Endpoint.Name, err, g.n)
		}
	}
	return nil
}

// probe measures one request of every row (session.Latency) and computes
// the expected durations from it.
func (p *plan) probe(ctx context.Context, s *session.Session, fixtures map[string]*load.Fixture) error {
	for i := range p.rows {
		r := &p.rows[i]
		c := r.cell
		c.Fixture = fixtures[c.Scenario]
		l, err := s.Latency(ctx, c)
		if err != nil {
			return err
		}
		r.latency, r.think = l, c.Fixture.ThinkPerRequest()
		r.expected = r.estimate(p.g, p.run.Shard)
	}
	return nil
}

// estimate is how long the row should take at its probed latency l: a
// level its load paces (an open loop's schedule, a soak, a ramp) takes
// what its pacer says and one latency for the last request to end; a
// closed loop of c workers sends n requests in ⌈n/c⌉ latencies (an agent
// loop's prompt in max_steps latencies, at its most), a level of
// conversations in as many latencies and think times (an open loop of
// them too, as if they did not overlap: an upper bound). Warm-ups,
// probes and breakdowns are counted as sent one by one (an upper bound). A
// server slower at load takes longer, which the progress line's ETA then
// shows.
func (r *planRow) estimate(g goTest, shard load.Shard) time.Duration {
	l := r.latency
	conf := r.cell.Settings
	total := time.Duration(r.other) * l
	for _, lv := range r.levels {
		n := shard.Share(g.n)
		loop := time.Duration(r.steps) * l // a prompt's requests, one after another
		if span := conf.Span(lv); span > 0 {
			total += time.Duration(g.count) * (span + loop)
			continue
		}
		if d, ok := conf.Expected(lv, n); ok {
			total += time.Duration(g.count) * (d + loop)
			continue
		}
		w, per := max(lv.Pacer.Workers(), 1), loop
		if load.PacesSessions(lv.Pacer) {
			per += r.think // each user thinks before a later turn
		}
		total += time.Duration(g.count) * time.Duration(math.Ceil(float64(n)/float64(w))) * per
	}
	return total
}

// totals are the plan's requests and expected duration (0 when a row was
// not probed).
func (p *plan) totals() (measured, other int, expected time.Duration, known bool) {
	known = true
	for _, r := range p.rows {
		measured += r.measured
		other += r.other
		expected += r.expected
		known = known && (r.latency > 0 || r.measured == 0)
	}
	return measured, other, expected, known
}

// cells is the number of scenario × endpoint × level cells.
func (p *plan) cells() int {
	n := 0
	for _, r := range p.rows {
		n += len(r.levels)
	}
	return n
}

// checkRequests refuses a plan that sends more requests than the run's
// budget, or a level that would take more than a day, before anything is
// sent.
func (p *plan) checkRequests() error {
	for _, r := range p.rows {
		if err := r.check(p.g); err != nil {
			return err
		}
	}
	measured, other, _, _ := p.totals()
	if m := p.run.MaxRequests; m > 0 && measured+other > m {
		return fmt.Errorf("the plan sends %d requests, over the budget of max_requests %d: lower -count or -n, or the levels, or raise the budget", measured+other, m)
	}
	return nil
}

// checkDuration refuses a plan expected to take longer than the run's
// budget, once it has been probed.
func (p *plan) checkDuration() error {
	_, _, expected, known := p.totals()
	if d := p.run.MaxDuration; d > 0 && known && expected > d {
		return fmt.Errorf("the plan is expected to take %s, over the budget of max_duration %s: lower -count or -n, or the levels, or raise the budget", roundDuration(expected), d)
	}
	return nil
}

// write shows the plan, one line per scenario × endpoint and a total.
func (p *plan) write(w io.Writer) {
	fmt.Fprintf(w, "plan: %d cells (scenario × endpoint × level), -count %d runs of each, -n %d requests a run%s\n",
		p.cells(), p.g.count, p.g.n, shardNote(p.run.Shard))
	for _, r := range p.rows {
		fmt.Fprintf(w, "  %-12s %-10s %-28s %s\n", r.cell.Scenario, r.cell.Endpoint.Name, levelList(r.levels), r.describe())
	}
	measured, other, expected, known := p.totals()
	line := fmt.Sprintf("  total: %s%d requests (%d measured, %d probes, warm-up and cold)", p.upTo(), measured+other, measured, other)
	switch {
	case known:
		line += ", expected ≈ " + roundDuration(expected) + " at the probed latencies (more if the endpoint slows under load)"
	default:
		line += "; expected duration not probed"
	}
	fmt.Fprintln(w, line)
	fmt.Fprintln(w, "  "+budgetLine(p.run))
}

// upTo is "up to " when a row's count is an upper bound (agent loops).
func (p *plan) upTo() string {
	for _, r := range p.rows {
		if r.steps > 1 {
			return "up to "
		}
	}
	return ""
}

func (r planRow) describe() string {
	var parts []string
	switch {
	case r.measured > 0 && r.steps > 1:
		parts = append(parts, fmt.Sprintf("up to %d measured (agent loops of up to %d steps) + %d other", r.measured, r.steps, r.other))
	case r.measured > 0:
		parts = append(parts, fmt.Sprintf("%d measured + %d other", r.measured, r.other))
	}
	if r.soak > 0 {
		parts = append(parts, fmt.Sprintf("soak: %s of sending + %d other", r.soak, r.other))
	}
	if r.capacity {
		parts = append(parts, "then a capacity search (its steps are not counted)")
	}
	if r.sweep {
		parts = append(parts, "a rate sweep included (its time not estimated: its rates are measured)")
	}
	if r.latency > 0 {
		parts = append(parts, fmt.Sprintf("≈ %s (one request took %s)", roundDuration(r.expected), roundDuration(r.latency)))
	}
	return strings.Join(parts, ", ")
}

func levelList(levels []config.Level) string {
	names := make([]string, len(levels))
	for i, lv := range levels {
		names[i] = string(lv.Label())
	}
	s := strings.Join(names, " ")
	if len(s) > 28 {
		s = fmt.Sprintf("%s … (%d levels)", names[0], len(names))
	}
	return s
}

func shardNote(sh load.Shard) string {
	if !sh.On() {
		return ""
	}
	return fmt.Sprintf("; this is shard %s: its share of every level", sh)
}

func budgetLine(r session.Run) string {
	if r.MaxRequests == 0 && r.MaxDuration == 0 {
		return "budget: none (budget: {max_requests, max_duration} in sla.yaml, or -max-requests / -max-duration)"
	}
	var parts []string
	if r.MaxRequests > 0 {
		parts = append(parts, fmt.Sprintf("max_requests %d", r.MaxRequests))
	}
	if r.MaxDuration > 0 {
		parts = append(parts, "max_duration "+r.MaxDuration.String())
	}
	return "budget: " + strings.Join(parts, ", ")
}

// roundDuration rounds d to what a reader of a plan needs.
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// progressTotal is what the progress line counts the whole run against.
func (p *plan) progressTotal() wholeRun {
	measured, other, _, _ := p.totals()
	w := wholeRun{requests: measured + other, cells: p.cells(), count: p.g.count, weight: map[string]float64{}}
	for _, r := range p.rows {
		if r.latency <= 0 {
			return wholeRun{requests: w.requests, cells: w.cells, count: w.count} // not probed: every request alike
		}
		per := float64(r.measured+r.other) / float64(len(r.levels))
		for _, lv := range r.levels {
			c := r.cell
			c.Level = lv
			x := r.latency.Seconds() / float64(max(lv.Pacer.Workers(), 1))
			w.weight[c.Name()] = x
			w.total += per * x
		}
	}
	return w
}
