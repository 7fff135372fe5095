package session

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/progress"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sequential"
	"github.com/llmsla/llmsla/harness/stream"
)

// Plan is what a run of the benched scenarios will send, computed before
// the first request by the code that sends (the schedule's take, walked
// on a copy of the session's schedule as go test's benchmarks will call
// Probe and Measure): per scenario × endpoint, its levels (cells) and
// requests, and — once each has been probed — how long it should take.
// -dry-run shows it, the budget checks it, the progress line counts
// against it; a test holds it to what the simulator received.
type Plan struct {
	Count, N int // go test's -count, and -benchtime Nx
	Run      Run
	Rows     []PlanRow
}

// PlanRow is one scenario on one endpoint.
type PlanRow struct {
	Cell   Cell // Level unset: the row is every level
	Levels []config.Level
	// Measured is the measured requests over every level and run, an
	// agent loop's at its max_steps (Steps); 0 for a soak's, whose time
	// decides. Other is go test's probes, the cold request, warm-ups and
	// the Ollama breakdowns.
	Measured, Other int
	Soak            time.Duration // a closed-loop soak's sending time
	Span            time.Duration // the time the levels' own schedules take, at least (soaks, ramps, traces)
	Capacity, Sweep bool
	Steps           int
	// Latency is one request, probed (0: not probed); Think the fixture's
	// think time a request at a level of conversations; Expected the
	// row's duration at that latency (0: not known).
	Latency, Think, Expected time.Duration
	// Decided and Needs are, for levels that stop once decided, the
	// measured requests if each is decided as early as it can be and the
	// objective that needs the most (sequential.Least); Measured is the
	// worst case.
	Decided int
	Needs   string
}

// BreakdownRequests is how many requests a breakdown of a scenario on an
// Ollama endpoint sends: after each scenario's levels under go test, after
// each measured benchmark run under llmsla bench.
const BreakdownRequests = 3

// Plan lays out a bench of the benched scenarios, their fixtures by
// scenario, at count runs of n requests each level, on every endpoint.
// A level a shard cannot take its share of is an error.
func (s *Session) Plan(benched []Scenario, fixtures map[string]*load.Fixture, count, n int) (*Plan, error) {
	p := &Plan{Count: count, N: n, Run: s.run}
	sched := s.sched.clone()
	sched.run.PerRun = n
	for _, sc := range benched {
		for _, ep := range s.cfg.Endpoints {
			if _, unfit := Unfit(sc, ep); unfit {
				continue // its API cannot serve the scenario: nothing is sent (the run says so)
			}
			conf := s.cfg.Scenario(sc.Name, ep.Name)
			r := PlanRow{Cell: Cell{Scenario: sc.Name, Endpoint: ep, Settings: conf, Fixture: fixtures[sc.Name]}, Levels: conf.Levels(),
				Capacity: conf.Capacity != nil, Steps: 1}
			if f := r.Cell.Fixture; f != nil {
				r.Steps = f.Steps()
			}
			if err := r.count(sched, count, n); err != nil {
				return nil, err
			}
			p.Rows = append(p.Rows, r)
		}
	}
	return p, nil
}

// count adds up the row's requests as go test's benchmarks send them:
// per level, each -count repetition a probe (b.N = 1) and a measured run
// of n (a level its time bounds — a soak, a ramp, a trace — what its load
// sends in that time), each the schedule's take; on an Ollama endpoint a
// breakdown after each measured run; then a sweep's steps.
func (r *PlanRow) count(sched *schedule, count, n int) error {
	conf := r.Cell.Settings
	for _, lv := range r.Levels {
		c := r.Cell
		c.Level = lv
		span := conf.Span(lv)
		var last sends
		for range count {
			probe, err := sched.take(c, 1, true)
			if err != nil {
				return err
			}
			r.Other += probe.total()
			m := n
			if span > 0 {
				m = conf.Requests(lv)
			}
			sd, err := sched.take(c, m, false)
			if err != nil {
				return err
			}
			r.Other += sd.total() - sd.n*sd.steps
			switch k, ok := lv.Pacer.Requests(span); {
			case span > 0 && !ok: // a closed-loop soak: its time decides
				r.Soak += span
			case span > 0:
				r.Measured += sched.run.Shard.Share(k) * sd.steps
			default:
				r.Measured += sd.n * sd.steps
			}
			r.Span += span
			last = sd
			if r.Cell.Endpoint.Kind == stream.KindOllama {
				r.Other += BreakdownRequests
			}
		}
		if count > 0 {
			r.decided(last, count, sched.run)
		}
	}
	r.countSweep(count)
	return nil
}

// decided adds a level's least measured requests under stop: decided,
// over its count runs of a send sd — sequential.Least, at least every
// fixture case asked, its runs pooled and each sent whole (leastSent), at
// most its count × n — and names the objective that needs the most.
func (r *PlanRow) decided(sd sends, count int, run Run) {
	if !(r.Cell.Settings.StopDecided || run.UntilDecided) {
		return
	}
	least, needs, ok := sequential.Least(r.Cell.Settings.Objectives)
	switch {
	case !stopsEarly(sd, false):
		r.Decided += count * sd.n * sd.steps
		r.Needs = "its load is not a count of single requests"
	case ok && needs.Metric == nil:
		r.Decided += count * sd.n
		r.Needs = "no objective to decide"
	case !ok:
		r.Decided += count * sd.n
		r.Needs = needs.String() + " is not decided request by request"
	default:
		together := run.together(count)
		sent, runs, stops := run.leastSent(max(least, sd.cases), sd.n, count)
		r.Decided += sent
		switch {
		case !together:
			r.Needs = fmt.Sprintf("%s needs %d", needs, least)
		case !stops:
			r.Needs = fmt.Sprintf("%s needs %d, more than a level's %d in %d runs of %d", needs, least, count*sd.n, count, sd.n)
		default:
			r.Needs = fmt.Sprintf("%s needs %d: %d of %d runs a level", needs, least, runs, count)
		}
	}
}

// countSweep adds a sweep's requests: per -count repetition each step's
// samples, and once — the first time a step's level runs — the
// connections its closed-loop steps open (one stream, then Saturate in
// flight) and its open-loop steps' cap.
func (r *PlanRow) countSweep(count int) {
	w := r.Cell.Settings.Sweep
	if w == nil {
		return
	}
	r.Sweep = true
	r.Measured += count * w.Requests(r.Cell.Settings.Samples)
	// Open-loop steps at rates measured anew each repetition are new
	// levels each time; the closed-loop ends are the same levels.
	r.Other += count * w.Steps * r.Cell.Settings.MaxConcurrency
	if w.From == 0 {
		r.Other++
	}
	if w.To == 0 {
		r.Other += w.Saturate
	}
}

// Check refuses, before anything is sent, a level whose schedule at the
// plan's n would take more than a day, a plan that sends more requests
// than the run's budget, or one whose levels' own schedules alone take
// longer than its duration budget (a soak of an hour under max_duration
// 5s) — what the run would refuse too, so that -dry-run refuses it.
func (p *Plan) Check() error {
	for _, r := range p.Rows {
		for _, lv := range r.Levels {
			if r.Cell.Settings.Span(lv) > 0 {
				continue
			}
			if err := r.Cell.Settings.CheckExpected(lv, p.N); err != nil {
				return fmt.Errorf("%s endpoint=%s: %w (-n %d)", r.Cell.Scenario, r.Cell.Endpoint.Name, err, p.N)
			}
		}
	}
	t := p.Totals()
	if m := p.Run.MaxRequests; m > 0 && t.Requests() > m {
		return fmt.Errorf("the plan sends %d requests, over the budget of max_requests %d: lower -count or -n, or the levels, or raise the budget", t.Requests(), m)
	}
	if d := p.Run.MaxDuration; d > 0 && t.Span > d {
		return fmt.Errorf("the plan's levels take %s by their own schedules (soaks, ramps, traces), over the budget of max_duration %s: shorten them, or raise the budget", t.Span, d)
	}
	return nil
}

// CheckDuration refuses a plan expected to take longer than the run's
// budget, once it has been probed.
func (p *Plan) CheckDuration() error {
	t := p.Totals()
	if d := p.Run.MaxDuration; d > 0 && t.Known && t.Expected > d {
		return fmt.Errorf("the plan is expected to take %s, over the budget of max_duration %s: lower -count or -n, or the levels, or raise the budget", t.Expected.Round(time.Second), d)
	}
	return nil
}

// Totals are a plan's sums.
type Totals struct {
	Measured, Other int
	Span, Expected  time.Duration
	Known           bool // every row with measured requests was probed
	Cells           int  // scenario × endpoint × level
	UpTo            bool // a count is an upper bound (agent loops)
	// Decided is the measured requests at the least under stop: decided
	// (each row's Decided, or its Measured when it does not stop early);
	// 0 when no row may stop early.
	Decided int
}

// Requests is every request of the plan.
func (t Totals) Requests() int { return t.Measured + t.Other }

// Totals adds up the plan's rows.
func (p *Plan) Totals() Totals {
	t := Totals{Known: true}
	stops := false
	for _, r := range p.Rows {
		t.Measured += r.Measured
		t.Decided += r.Measured
		if r.Needs != "" {
			t.Decided += min(r.Decided, r.Measured) - r.Measured
			stops = true
		}
		t.Other += r.Other
		t.Span += r.Span
		t.Expected += r.Expected
		t.Known = t.Known && (r.Latency > 0 || r.Measured == 0)
		t.Cells += len(r.Levels)
		t.UpTo = t.UpTo || r.Steps > 1
	}
	if !stops {
		t.Decided = 0
	}
	return t
}

// Probe measures one request of every row (Session.Latency) and computes
// the expected durations from it.
func (p *Plan) Probe(ctx context.Context, s *Session) error {
	for i := range p.Rows {
		r := &p.Rows[i]
		l, err := s.Latency(ctx, r.Cell)
		if err != nil {
			return err
		}
		r.Latency, r.Think = l, r.Cell.Fixture.ThinkPerRequest()
		r.Expected = r.estimate(p.Count, p.N, p.Run.Shard)
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
func (r *PlanRow) estimate(count, n int, shard load.Shard) time.Duration {
	l := r.Latency
	conf := r.Cell.Settings
	total := time.Duration(r.Other) * l
	for _, lv := range r.Levels {
		n := shard.Share(n)
		loop := time.Duration(r.Steps) * l // a prompt's requests, one after another
		if span := conf.Span(lv); span > 0 {
			total += time.Duration(count) * (span + loop)
			continue
		}
		if d, ok := conf.Expected(lv, n); ok {
			total += time.Duration(count) * (d + loop)
			continue
		}
		w, per := max(lv.Pacer.Workers(), 1), loop
		if load.PacesSessions(lv.Pacer) {
			per += r.Think // each user thinks before a later turn
		}
		total += time.Duration(count) * time.Duration(math.Ceil(float64(n)/float64(w))) * per
	}
	return total
}

// Report is the plan as people read it (report.WritePlan).
func (p *Plan) Report() report.Plan {
	t := p.Totals()
	out := report.Plan{Cells: t.Cells, Count: p.Count, N: p.N, Requests: t.Requests(), Measured: t.Measured, Other: t.Other, Decided: t.Decided,
		UpTo: t.UpTo, Known: t.Known, Expected: t.Expected, Span: t.Span, MaxRequests: p.Run.MaxRequests, MaxDuration: p.Run.MaxDuration}
	if p.Run.Shard.On() {
		out.Shard = p.Run.Shard.String()
	}
	for _, r := range p.Rows {
		row := report.PlanRow{Scenario: r.Cell.Scenario, Endpoint: r.Cell.Endpoint.Name, Measured: r.Measured, Other: r.Other, Steps: r.Steps,
			Soak: r.Soak, Capacity: r.Capacity, Sweep: r.Sweep, Latency: r.Latency, Expected: r.Expected, Decided: r.Decided, Needs: r.Needs}
		for _, lv := range r.Levels {
			row.Levels = append(row.Levels, string(lv.Label()))
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// Progress is what the progress line counts the whole run against: the
// plan's requests, each cell's weighed by its probed time a request.
func (p *Plan) Progress() progress.Whole {
	t := p.Totals()
	w := progress.Whole{Requests: t.Requests(), Cells: t.Cells, Count: p.Count, Weight: map[string]float64{}}
	for _, r := range p.Rows {
		if r.Latency <= 0 {
			return progress.Whole{Requests: w.Requests, Cells: w.Cells, Count: w.Count} // not probed: every request alike
		}
		per := float64(r.Measured+r.Other) / float64(len(r.Levels))
		for _, lv := range r.Levels {
			c := r.Cell
			c.Level = lv
			x := r.Latency.Seconds() / float64(max(lv.Pacer.Workers(), 1))
			w.Weight[c.Name()] = x
			w.Total += per * x
		}
	}
	return w
}
