package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Board is the model-selection view of samples from several endpoints that
// ran the same suites: per endpoint its figures per scenario and over all
// of them, whether it met every objective, where it stands on the Pareto
// front of quality × latency × cost, how the endpoints rank on each of
// those (tied where the difference is not significant), and which one to
// choose. Like every report it is a view over samples: files from several
// runs or shards pool before it is built.
type Board struct {
	Endpoints []*Entry // in name order
	Scenarios []string // every scenario any endpoint ran, in name order
	Levels    []sample.Level
	// SearchSteps counts the requests of capacity-search steps, left out.
	SearchSteps int
	// Axes are the figures the Pareto front compares; NotCompared says
	// which were left out and why (no endpoint measured them).
	Axes        []Axis
	NotCompared []string
	Ranks       []Ranking
	Alpha       float64
	Prefer      Prefer
	// Recommended is the endpoint to choose, "" when none meets every
	// objective; Recommendation says why, in one sentence.
	Recommended    string
	Recommendation string
	// Verdicts are the judged runs behind the rows, per scenario ×
	// endpoint × level (capacity-search steps left out): the figures of
	// each level, for plots against load.
	Verdicts []objective.Verdict
	// Timelines are what each endpoint's server said over time
	// (Options.Timelines), for the plots over time.
	Timelines []Timeline

	levelsOf map[string][]sample.Level // per scenario, the levels any endpoint ran
	// embeds says, per endpoint and per scenario (scenarioKey+name),
	// whether its requests were embeddings (sample.Sample.Embeds).
	embeds map[string]bool
}

// scenarioKey prefixes a scenario's name in Board.embeds: endpoint and
// scenario names may be the same.
const scenarioKey = "scenario\x00"

// notApplicable says why endpoint cannot serve scenario, which it did
// not run ("" when it could), as their requests on the board show.
func (b *Board) notApplicable(scenario, endpoint string) string {
	return notApplicable(b.embeds[scenarioKey+scenario], b.embeds[endpoint])
}

// notApplicable says why an endpoint that embeds (or generates) cannot
// serve a scenario that generates (or embeds), "" when both do the same:
// the session measures neither on the other (session.Unfit), so a
// scenario × endpoint missing for this reason is no miss, and no pass.
func notApplicable(scenarioEmbeds, endpointEmbeds bool) string {
	switch {
	case scenarioEmbeds && !endpointEmbeds:
		return "not applicable: the scenario embeds; the endpoint generates text"
	case !scenarioEmbeds && endpointEmbeds:
		return "not applicable: the scenario generates text; the endpoint embeds"
	}
	return ""
}

// Entry is one endpoint on the board.
type Entry struct {
	Name, Model string
	Overall     Row   // every scenario pooled
	Scenarios   []Row // one per Board.Scenarios, in that order
	// Meets: every objective of every scenario at every level held, and
	// the endpoint ran every scenario of the board at every level any
	// endpoint ran it (a row pooling fewer levels is not comparable).
	Meets      bool
	Violations []string // each violated objective, where it failed
	// NotApplicable are the board's scenarios the endpoint's API cannot
	// serve (an embeddings endpoint and the generating scenarios, a
	// generating endpoint and the embeddings one): neither a miss nor a
	// pass, and an endpoint with any is not recommended over the board.
	NotApplicable []string
	Pareto        bool // no endpoint dominates it
	// DominatedBy names the endpoints that dominate it, each with the
	// figures it is significantly better on.
	DominatedBy []Domination

	measured []sample.Sample
}

// Domination is one endpoint dominating another: at least as good on every
// compared figure and significantly better on Better.
type Domination struct {
	By     string
	Better []string
}

// Row is the figures of one endpoint on one scenario (Scenario "" for all
// of them), its load levels pooled.
type Row struct {
	Scenario string
	Stats    *stats.Stats
	Cost     Cost
	// Meets: every objective held at every level; false for a scenario
	// the endpoint did not run (Stats.Attempted == 0) or ran at fewer
	// levels than another endpoint (Missing).
	Meets bool
	// Missing lists the levels of the scenario another endpoint ran and
	// this one did not; its figures pool the others only.
	Missing []sample.Level
	Failed  int // objectives violated, over the levels
	// NotApplicable says why the endpoint's API cannot serve the
	// scenario ("" when it can): it was not run, and is no miss.
	NotApplicable string
}

// Samples returns the endpoint's measured samples (warm-up excluded; the
// cold first request of each run flagged), for plots.
func (e *Entry) Samples() []sample.Sample { return e.measured }

// Prefer says what the recommendation minimises among the endpoints that
// meet every objective.
type Prefer string

const (
	PreferCost    Prefer = "cost"
	PreferLatency Prefer = "latency"
)

// Options say how to judge and price samples.
type Options struct {
	// Objectives of each scenario on each endpoint, as the verdict table
	// uses them (config.Config.Objectives).
	Objectives objective.Lookup
	Prices     map[string]Price
	Alpha      float64 // significance level of ties; 0 means 0.05
	Prefer     Prefer  // "" means PreferCost
	// Quality names the quality axis's figure: one of QualityAxes
	// ("" means accuracy; judge_pass ranks on the judge's verdicts).
	Quality string
	// Servers gives each level's server figures (nil: none), so that an
	// objective on them is judged as the verdict table judges it;
	// Timelines are what each endpoint's server said over time (plots).
	Servers   objective.Servers
	Timelines []Timeline
}

// DefaultRankAlpha is the significance level below which a difference between
// two endpoints ranks them instead of tying them.
const DefaultRankAlpha = 0.05

// NewBoard builds the board of samples.
func NewBoard(samples []sample.Sample, o Options) *Board {
	if o.Alpha <= 0 {
		o.Alpha = DefaultRankAlpha
	}
	if o.Prefer == "" {
		o.Prefer = PreferCost
	}
	if o.Objectives == nil {
		o.Objectives = func(string, string) objective.Objectives { return nil }
	}
	b := &Board{Alpha: o.Alpha, Prefer: o.Prefer, Timelines: o.Timelines, levelsOf: map[string][]sample.Level{}, embeds: map[string]bool{}}
	byEndpoint := map[string][]sample.Sample{}
	scenarios := map[string]map[sample.Level]bool{}
	levels := map[sample.Level]bool{}
	judged := make([]sample.Sample, 0, len(samples))
	for _, s := range samples {
		if s.Warmup {
			continue
		}
		// A capacity search's steps explore beyond the limit and fail by
		// design: they are not the runs an SLA judges, nor a fair figure.
		if _, search := s.Level.Get("search"); search {
			b.SearchSteps++
			continue
		}
		judged = append(judged, s)
		byEndpoint[s.Endpoint] = append(byEndpoint[s.Endpoint], s)
		b.embeds[s.Endpoint] = b.embeds[s.Endpoint] || s.Embeds()
		b.embeds[scenarioKey+s.Scenario] = b.embeds[scenarioKey+s.Scenario] || s.Embeds()
		if scenarios[s.Scenario] == nil {
			scenarios[s.Scenario] = map[sample.Level]bool{}
		}
		scenarios[s.Scenario][s.Level] = true
		levels[s.Level] = true
	}
	for sc, lv := range scenarios {
		b.Scenarios = append(b.Scenarios, sc)
		b.levelsOf[sc] = sortedLevels(lv)
	}
	sort.Strings(b.Scenarios)
	b.Levels = sortedLevels(levels)

	b.Verdicts = objective.EvaluateServer(judged, o.Objectives, o.Servers)
	names := make([]string, 0, len(byEndpoint))
	for name := range byEndpoint {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Endpoints = append(b.Endpoints, b.entry(name, byEndpoint[name], b.Verdicts, o))
	}
	b.compare(o.Quality)
	b.recommend()
	return b
}

func (b *Board) entry(name string, samples []sample.Sample, vs []objective.Verdict, o Options) *Entry {
	e := &Entry{Name: name, measured: samples, Meets: true}
	for _, s := range samples {
		if s.Model != "" {
			e.Model = s.Model
			break
		}
	}
	var price *Price
	if p, ok := o.Prices[name]; ok {
		price = &p
	}
	good := func(s *sample.Sample) bool { return o.Objectives(s.Scenario, s.Endpoint).Good(s) }
	byScenario := map[string][]sample.Sample{}
	for _, s := range samples {
		byScenario[s.Scenario] = append(byScenario[s.Scenario], s)
	}
	for _, sc := range b.Scenarios {
		ss := byScenario[sc]
		st := stats.Summarize(ss, good)
		row := Row{Scenario: sc, Stats: st, Cost: CostOf(ss, st, price), Meets: len(ss) > 0}
		row.Stats.Asked = len(row.Stats.Cases) // the row is the scenario's whole run: every level
		if len(ss) == 0 {
			if why := b.notApplicable(sc, name); why != "" {
				row.NotApplicable = why
				e.NotApplicable = append(e.NotApplicable, sc)
				e.Scenarios = append(e.Scenarios, row)
				continue // neither a miss nor a pass: recommend() leaves the endpoint out
			}
			e.Violations = append(e.Violations, sc+": not measured on this endpoint")
		} else {
			// The rule for a scenario, for its levels: an endpoint that
			// did not run what another ran pools fewer levels (often the
			// light ones), and would look better for it.
			ran := map[sample.Level]bool{}
			for i := range ss {
				ran[ss[i].Level] = true
			}
			for _, l := range b.levelsOf[sc] {
				if !ran[l] {
					row.Meets = false
					row.Missing = append(row.Missing, l)
					e.Violations = append(e.Violations, strings.TrimSpace(sc+" "+strings.ReplaceAll(string(l), "/", " "))+": not measured on this endpoint")
				}
			}
		}
		for _, v := range vs {
			if v.Scenario != sc || v.Endpoint != name {
				continue
			}
			row.Failed += len(v.Violations)
			for _, viol := range v.Violations {
				row.Meets = false
				e.Violations = append(e.Violations, where(v)+": "+viol.String())
			}
		}
		e.Meets = e.Meets && row.Meets
		e.Scenarios = append(e.Scenarios, row)
	}
	all := stats.Summarize(samples, good)
	// Coverage is a figure of one fixture; over several scenarios (which
	// may share case ids) it means nothing, so the overall row has none.
	all.Scenario, all.Level, all.FixtureCases, all.Cases = "", "", 0, nil
	e.Overall = Row{Stats: all, Cost: CostOf(samples, all, price), Meets: e.Meets}
	for _, r := range e.Scenarios {
		e.Overall.Failed += r.Failed
	}
	return e
}

func sortedLevels(set map[sample.Level]bool) []sample.Level {
	out := make([]sample.Level, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return sample.Less(out[i], out[j]) })
	return out
}

// Columns are the figures a board shows: the verdict table's columns, each
// latency at its p95 only (a choice is made on the tail users wait for).
func Columns() []metric.Fig {
	var out []metric.Fig
	for _, c := range metric.Columns() {
		if c.Kind != metric.Latency || c.P == 95 {
			out = append(out, c)
		}
	}
	return out
}

// Entry returns the endpoint named name, nil if it is not on the board.
func (b *Board) Entry(name string) *Entry {
	i := slices.IndexFunc(b.Endpoints, func(e *Entry) bool { return e.Name == name })
	if i < 0 {
		return nil
	}
	return b.Endpoints[i]
}

// levelNames lists the board's load levels for a note: "concurrency=1, 5".
func (b *Board) levelNames() string {
	s := ""
	for i, l := range b.Levels {
		if i > 0 {
			s += ", "
		}
		s += string(l)
	}
	if s == "" {
		return "none"
	}
	return s
}

func (d Domination) String() string {
	return fmt.Sprintf("%s (better %s)", d.By, joinAnd(d.Better))
}
