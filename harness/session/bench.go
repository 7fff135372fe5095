package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
	"github.com/llmsla/llmsla/harness/trace"
)

// Bench is a bench (go test's benchmarks of the suites, run by a
// command) checked and laid out before its first request: every check
// that can be made then, made, so that -dry-run and the run refuse the
// same things.
type Bench struct {
	Suites    Suites
	Scenarios []Scenario // the benched, in go test's order
	Plan      *Plan
	// Notes say what the run will not do that a reader would expect (a
	// rubric with no judge to ask).
	Notes []string
	// Preflight is the endpoints' failures that every request would
	// share (nil: none), and PreflightWarn the others; Provenance what
	// the run measures beyond its figures. Unset in a dry run.
	Preflight, PreflightWarn error
	Provenance               sample.Provenance
	// Unserved are the scenarios an endpoint cannot serve, found by
	// asking it (a dry run too): not measured there, and said so.
	Unserved []Unserved
	// Probes is the capability probes sent (one token each).
	Probes int
	// Against is the base a bench is gated against look by look (run.Against),
	// Design its looks, and Looks the requests each look adds ("": none).
	Against  string
	Design   gate.Design
	Looks    []*Plan
	fixed    Totals // the fixed gate's runs (Design.Base), planned
	fixtures map[string]*load.Fixture
}

// Skip is what the bench's child skips: scenario/endpoint of each
// unserved scenario (Child.Skip).
func (b *Bench) Skip() []string {
	var out []string
	for _, u := range b.Unserved {
		out = append(out, u.Scenario+"/"+u.Endpoint)
	}
	return out
}

// PrepareBench checks a bench of g on cfg before anything is sent, in the
// order a reader fixes things: the suites build and define the scenarios
// the SLA file names, -bench selects something, every scenario the file
// configures is one the bench measures, each benched scenario's fixture
// loads and its levels split over the shards, the plan fits the budget;
// then what each scenario needs of each endpoint (tool calls, structured
// output: one request of one token each, a dry run too): a scenario an
// endpoint refuses is not measured there and said so (b.Unserved), or,
// when the SLA file names it, an error; then, unless dry, every endpoint
// (the preflight: a failure every request would share is b.Preflight, an
// error unless keepGoing) and one request of each row (the plan's
// expected durations, checked against the budget), and what the run
// measures (provenance). It returns what it found so far with its error.
func PrepareBench(cfg *config.Config, run Run, g GoTest, dry, keepGoing bool) (*Bench, error) {
	b := &Bench{Against: run.Against}
	var err error
	if b.Against != "" {
		b.Design, g.Count = gate.DefaultDesign, gate.DefaultDesign.Ceiling() // the plan is the worst case
		if err := checkAgainst(b.Against); err != nil {
			return b, err
		}
	}
	if b.Suites, err = g.Suites(); err != nil {
		return b, err
	}
	if len(b.Suites.Benched) == 0 {
		return b, fmt.Errorf("-bench %q matches no benchmark in %s: nothing to measure", g.Bench, g.Pkg)
	}
	if err := cfg.CheckScenarios(b.Suites.Names()); err != nil {
		return b, err
	}
	if err := cfg.CheckBatch(Embeds(b.Suites.Defined)); err != nil {
		return b, err
	}
	if err := cfg.CheckJudged(b.Suites.Benched, "this bench measures"); err != nil {
		return b, err
	}
	for _, name := range b.Suites.Benched {
		sc, _ := b.Suites.Scenario(name)
		if err := CheckShard(cfg, sc, run.Shard); err != nil {
			return b, err
		}
		b.Scenarios = append(b.Scenarios, sc)
	}
	s, err := New(cfg, run, Options{})
	if err != nil {
		return b, err
	}
	defer s.Close()
	fixtures := map[string]*load.Fixture{}
	b.fixtures = fixtures
	for _, sc := range b.Scenarios {
		if fixtures[sc.Name], err = s.Source(sc); err != nil {
			return b, err
		}
		if note := s.concerns.Judge.Note(sc.Name); note != "" {
			b.Notes = append(b.Notes, note)
		}
	}
	if b.Plan, err = s.Plan(b.Scenarios, fixtures, g.Count, g.N); err != nil {
		return b, err
	}
	if err := b.Plan.Check(); err != nil {
		return b, err
	}

	ctx := context.Background()
	if err := b.serve(ctx, s, fixtures); err != nil {
		return b, err
	}
	if b.Against != "" {
		if err := s.planLooks(b, g.N); err != nil {
			return b, err
		}
	}
	if dry {
		return b, nil
	}
	b.PreflightWarn, b.Preflight = s.Preflight(ctx)
	if b.Preflight != nil && !keepGoing {
		return b, fmt.Errorf("preflight, before any measured request (-keep-going sends the run anyway):\n%w", b.Preflight)
	}
	if err := b.Plan.Probe(ctx, s); err != nil {
		return b, err
	}
	b.Provenance = s.Provenance(ctx, b.Scenarios)
	b.Notes = append(b.Notes, longRows(b.Plan, b.Provenance)...)
	return b, b.Plan.CheckDuration()
}

// longRows says, for each trace level of the plan, how many of its rows
// ask a longer prompt than the endpoint's model holds (its context length,
// as its server said: provenance model.context_length): before the run,
// so that a replay whose rows the server refuses or cuts is not read as
// the trace's load. The rows are sent all the same, and their errors are
// counted as any request's.
func longRows(p *Plan, prov sample.Provenance) []string {
	var notes []string
	for _, r := range p.Rows {
		ctxLen, err := strconv.Atoi(prov["endpoint."+sample.NameValue(r.Cell.Endpoint.Name)+".model.context_length"])
		if err != nil || ctxLen <= 0 {
			continue
		}
		for _, lv := range r.Levels {
			tr, ok := lv.Pacer.(load.Trace)
			if !ok {
				continue
			}
			long, rows := 0, 0
			trace.Each(tr.Spec, func(row trace.Row, _ time.Duration) error {
				rows++
				if row.Input > ctxLen {
					long++
				}
				return nil
			})
			if long > 0 {
				notes = append(notes, fmt.Sprintf("%s endpoint=%s %s: %d of the trace's %d rows ask more prompt tokens than the model's context of %d (model.context_length): the server will refuse or cut them, and they count as what it does",
					r.Cell.Scenario, r.Cell.Endpoint.Name, lv.Label(), long, rows, ctxLen))
			}
		}
	}
	return notes
}

// capabilityTimeout bounds the capability probes: a dry run must not hang
// on an endpoint that does not answer (the preflight of a real run says
// why).
const capabilityTimeout = 10 * time.Second

// serve asks the endpoints for what the scenarios need, and takes the
// scenarios an endpoint cannot serve out of the plan — or refuses the run
// when the SLA file names one: what it asks would not be measured.
func (b *Bench) serve(ctx context.Context, s *Session, fixtures map[string]*load.Fixture) error {
	ctx, cancel := context.WithTimeout(ctx, capabilityTimeout)
	defer cancel()
	var errs []error
	for _, u := range s.eps.capabilities(ctx, s.cfg, s.secrets, b.Scenarios, fixtures) {
		if fitsNone(u, s.cfg.Endpoints, b.Scenarios) && s.cfg.Names(u.Scenario) {
			errs = append(errs, fmt.Errorf("%s: scenarios.%s: no endpoint serves it (endpoint %s %s: %s), and the SLA file names the scenario: add an endpoint of the api it needs, or remove it from the file",
				s.cfg.Source, u.Scenario, u.Endpoint, lacks[u.Lacks], u.Why))
			continue
		}
		if s.cfg.Names(u.Scenario) && u.Lacks != Embedding && u.Lacks != Generation {
			errs = append(errs, fmt.Errorf("%s: scenarios.%s: endpoint %s %s (%s), and the SLA file names the scenario, so what it asks would not be measured: measure it on an endpoint that does, serve a model that does (for Ollama, fixtures/models/Modelfile.tools offers tools), or remove it from the file",
				s.cfg.Source, u.Scenario, u.Endpoint, lacks[u.Lacks], u.Why))
			continue
		}
		b.Unserved = append(b.Unserved, u)
		b.Plan.Rows = slices.DeleteFunc(b.Plan.Rows, func(r PlanRow) bool {
			return r.Cell.Scenario == u.Scenario && r.Cell.Endpoint.Name == u.Endpoint
		})
	}
	for _, sc := range b.Scenarios {
		b.Probes += len(needs(sc, fixtures[sc.Name])) * len(s.cfg.Endpoints)
	}
	return errors.Join(errs...)
}

// fitsNone says whether u's scenario is unfit (Unfit) for every endpoint:
// a scenario that only some endpoints' APIs serve is measured on those.
func fitsNone(u Unserved, eps []stream.Endpoint, scenarios []Scenario) bool {
	if u.Lacks != Embedding && u.Lacks != Generation {
		return false
	}
	for _, sc := range scenarios {
		if sc.Name != u.Scenario {
			continue
		}
		for _, ep := range eps {
			if _, unfit := Unfit(sc, ep); !unfit {
				return false
			}
		}
	}
	return true
}

// JudgeOn is a judge asking the endpoint named — the configuration's
// judge ("" or its name), or one of its measured endpoints — through the
// session's judge cache and settings: llmsla judge calibrate holds judges
// to labels and to each other. It needs a judge: block (the cache, seed
// and budget); note says why a judge's digest is unknown.
func (s *Session) JudgeOn(ctx context.Context, name string) (jd *judge.Judge, note string, err error) {
	j := s.concerns.Judge
	set := j.Settings()
	switch {
	case set == nil:
		return nil, "", fmt.Errorf("%s has no judge: block (judge: {endpoint: …}): name the judge and its settings there", s.cfg.Source)
	case name == "" || name == set.Endpoint.Name:
		jd, note = j.Default(ctx)
		return jd, note, nil
	}
	ep, c, ok := s.Endpoint(name)
	if !ok {
		return nil, "", fmt.Errorf("no endpoint named %q (have: %s, and the judge %s)", name, strings.Join(s.cfg.EndpointNames(), ", "), set.Endpoint.Name)
	}
	digest := ""
	if ep.Simulated {
		simCfg, _ := s.cfg.Sim(ep.Name) // checked when it was served
		digest = simCfg.JudgeDigest()
	}
	jd, note = j.On(ctx, ep, c, digest)
	return jd, note, nil
}
