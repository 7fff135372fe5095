package verdict

import (
	"fmt"
	"slices"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// Options say what a verdict may take.
type Options struct {
	// Shard: a shard's own bench judges its share only, to show it: the
	// run is judged when every shard's files are merged, so a missing
	// shard is no error here.
	Shard load.Shard
	// Partial: files cut short are judged on what finished (Run.Cut says
	// which).
	Partial bool
	// Steps: capacity-search steps are what the run measured (the bench
	// of llmsla capacity); elsewhere samples of search steps alone are
	// nothing an objective judges.
	Steps bool
	// AllowChange: a run whose endpoint served several models (or
	// fingerprints) is judged on their pooled figures, saying so; else
	// it is no verdict (Run.Changed).
	AllowChange bool
}

// Run is what a verdict judges: the samples of recorded files, pooled,
// and what the files beside them hold.
type Run struct {
	Paths   []string
	Samples []sample.Sample
	// Cut are the files cut short, judged on what finished.
	Cut []error
	// Servers are the servers' readings beside the samples.
	Servers Servers
	// Provenance is what the files say was measured, pooled, and the
	// models that answered; nil when they recorded none.
	Provenance sample.Provenance
	// Changed are the endpoints whose served model or fingerprint
	// changed during the run.
	Changed []Change
	// Warmups are the levels whose warm-up had failures.
	Warmups []Warmup
	// Health is the client's own health, level by level, as the results
	// files beside the samples recorded it.
	Health []LevelHealth
}

// Doubts are the warnings a run's figures carry: a served model that
// changed, a warm-up that failed.
func (r *Run) Doubts() []fmt.Stringer {
	var out []fmt.Stringer
	for _, c := range r.Changed {
		out = append(out, c)
	}
	for _, w := range r.Warmups {
		out = append(out, w)
	}
	return out
}

// Unjudged says why a run whose objectives were judged is still no
// verdict ("" it is one): a level whose warm-up mostly failed, or, unless
// o.AllowChange, an endpoint that served several models.
func (r *Run) Unjudged(o Options) string {
	for _, w := range r.Warmups {
		if w.Mostly() {
			return "A level's warm-up mostly failed: the run is no verdict (fix what failed, or give the level fewer streams)."
		}
	}
	if len(r.Changed) > 0 && !o.AllowChange {
		return "The model served changed during the run: its figures pool several models and are no verdict (-allow-change judges them)."
	}
	return ""
}

// Load reads what verdict, report and bench's leaderboard judge, with one
// set of checks: samples files and directories pooled (a file given twice
// is an error), every line bounded and checked against what a request can
// measure (sample.Read), a file cut short refused unless o.Partial, a
// sharded run missing a shard refused (but in a shard's own bench, which
// holds its share only), a scenario the SLA file names that the files do
// not hold refused (a misspelling whose objectives would judge nothing),
// and samples that measured nothing (warm-up, cold first requests, search
// steps but with o.Steps) refused: an empty table is not a pass. The
// servers' readings beside them are read as strictly (LoadServers).
func Load(cfg *config.Config, paths []string, o Options) (*Run, error) {
	samples, cut, err := sample.ReadAll(paths, o.Partial)
	if err == nil && !o.Shard.On() {
		err = sample.CheckShards(samples)
	}
	if err == nil {
		err = cfg.CheckScenarios(recorded(samples))
	}
	if err == nil && !(o.Steps && searched(samples)) {
		err = sample.CheckMeasured(samples)
	}
	if err != nil {
		return nil, err
	}
	servers, err := LoadServers(paths, o.Partial)
	if err != nil {
		return nil, err
	}
	health, _ := Health(paths)
	return &Run{Paths: paths, Samples: samples, Cut: cut, Servers: servers, Provenance: provenanceOf(paths, samples), Changed: Changes(samples), Warmups: Warmups(samples),
		Health: health}, nil
}

// searched reports whether samples hold a measured capacity-search step.
func searched(samples []sample.Sample) bool {
	return slices.ContainsFunc(samples, func(s sample.Sample) bool {
		_, step := s.Level.Get("search")
		return step && s.Measured()
	})
}

// recorded lists the scenarios the samples hold, and the presets: an SLA
// file may set a preset the files did not run, but a name that is neither
// is a misspelling that would judge nothing.
func recorded(samples []sample.Sample) []string {
	seen := map[string]bool{}
	for name := range config.Presets() {
		seen[name] = true
	}
	for i := range samples {
		seen[samples[i].Scenario] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// provenanceOf is what the samples files say was measured: their
// provenance records, pooled, and the models that answered. A record
// that cannot be read was refused with the samples already.
func provenanceOf(paths []string, samples []sample.Sample) sample.Provenance {
	p, _ := sample.ReadProvenance(paths)
	if p == nil {
		return nil
	}
	return sample.Merge(p, sample.Observe(samples))
}

// Verdicts are the run's verdicts against cfg's objectives, with its
// servers' figures.
func (r *Run) Verdicts(cfg *config.Config) []objective.Verdict {
	return objective.EvaluateServer(r.Samples, cfg.Objectives, r.beside())
}

// Info is what the run was: its commit and each endpoint's host, as the
// results files beside its samples recorded them (the configuration may
// have changed since; the commit, else, as the samples' provenance
// records the client), the configuration judged against, each endpoint's
// models.
func (r *Run) Info(cfg *config.Config) report.RunInfo {
	headers := recording.Headers(r.Paths)
	host := func(name string) string { return headers["endpoint."+sample.NameValue(name)+".host"] }
	info := report.NewRunInfo(r.Samples, host)
	info.Commit, info.Config = headers["commit"], cfg.Source
	if info.Commit == "" { // a run stopped before its first benchmark line
		info.Commit = r.Provenance["client.llmsla"]
	}
	return info
}

// Board is the model-selection board of the run: its samples judged
// against cfg's objectives as its verdicts are, priced at cfg's
// endpoints' prices, with the servers' readings; prefer and quality (""
// accuracy) as report.Options says.
func (r *Run) Board(cfg *config.Config, prefer report.Prefer, quality string) *report.Board {
	return report.NewBoard(r.Samples, report.Options{Objectives: cfg.Objectives, Prices: cfg.Prices, Alpha: cfg.Gate.Alpha,
		Prefer: prefer, Quality: quality, Servers: r.beside(), Timelines: r.Servers.Timelines})
}
