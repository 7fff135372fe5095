package verdict

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/provenance"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// Decide puts the decision's flags over cfg's gate: section in opts: a
// flag's -alpha (every family) over the file's alpha and family levels, a
// flag's family level over the file's, the file's tolerances under the
// flags' (tolerances, by unit); and the objectives that keep a blind
// figure from passing (Bound).
func Decide(opts *gate.Options, cfg *config.Config, tolerances map[string]gate.Tolerance) {
	g := cfg.Gate
	flagged := opts.Alpha != 0 // -alpha 0.01 sets every family, over the file
	if !flagged && g.Alpha != 0 {
		opts.Alpha = g.Alpha
	}
	for f, a := range g.FamilyAlpha {
		if _, set := opts.FamilyAlpha[f]; !set && !flagged {
			if opts.FamilyAlpha == nil {
				opts.FamilyAlpha = map[string]float64{}
			}
			opts.FamilyAlpha[f] = a // a flag for the family wins
		}
	}
	opts.Tolerance = map[string]gate.Tolerance{}
	for unit, t := range g.Tolerance {
		opts.Tolerance[unit] = t
	}
	for unit, t := range tolerances {
		opts.Tolerance[unit] = t
	}
	opts.Objective = Bound(cfg)
}

// Bound says whether an objective of cfg bounds unit on the scenario ×
// endpoint the gate names group ("chat/endpoint=prod", or "chat" when two
// endpoints are judged against each other: then any endpoint's): a blind
// figure with one is not a pass (gate.Options.Objective).
func Bound(cfg *config.Config) func(group, unit string) bool {
	return func(group, unit string) bool {
		scenario, ep, _ := strings.Cut(group, "/endpoint=")
		var key string
		for _, u := range metric.Units() {
			if u.Unit() == unit {
				key = u.Key()
			}
		}
		if key == "" {
			return true // not a figure of the table: judge it as asked for
		}
		endpoints := cfg.EndpointNames()
		if len(endpoints) == 0 || ep != "" {
			endpoints = []string{ep}
		}
		for _, e := range endpoints {
			for _, name := range []string{e, unescapeEndpoint(cfg, e)} {
				for _, th := range cfg.Objectives(scenario, name) {
					if th.Key() == key {
						return true
					}
				}
			}
		}
		return false
	}
}

// unescapeEndpoint is the configured endpoint whose benchmark name is
// named (sample.NameValue escapes what benchfmt would misread), or named.
func unescapeEndpoint(cfg *config.Config, named string) string {
	for _, e := range cfg.EndpointNames() {
		if sample.NameValue(e) == named {
			return e
		}
	}
	return named
}

// Gate gates NEW against BASE: two benchmark files (gate.Gate, their
// samples beside them), or runs of which one at least is a directory of
// shards' results (GateShards), where flags that choose among benchmark
// lines are refused: a directory is judged on its pooled requests only.
func Gate(base, new string, opts gate.Options) (*gate.Report, error) {
	if !isDir(base) && !isDir(new) {
		return gate.Gate(recording.File(base), recording.File(new), opts)
	}
	if opts.RunsOnly || opts.Filter != "*" {
		return nil, errors.New("-runs-only and -filter choose among benchmark lines, and a directory of shards is judged on its pooled requests only: drop the flag")
	}
	return GateShards(base, new, opts)
}

// GateShards gates runs of which one at least is a directory of shards'
// results: their samples pooled into one run (a missing shard is an
// error), every figure judged on requests — a shard's own benchmark lines
// are its share of the run, not the run's figures. A .txt side is read
// through the samples file beside it; each results file is held to the
// samples file beside it (provenance.Agree).
func GateShards(base, new string, opts gate.Options) (*gate.Report, error) {
	var sides [2][]sample.Sample
	var provs [2]sample.Provenance
	for i, p := range []string{base, new} {
		ss, prov, err := recordedSide([2]string{"BASE", "NEW"}[i], p)
		if err == nil {
			err = sample.CheckShards(ss)
		}
		if err != nil {
			return nil, unusable(err)
		}
		sides[i], provs[i] = ss, sample.Merge(prov, sample.Observe(ss))
	}
	check, err := provenance.Compare(base, new, provs[0], provs[1], opts.AllowChange)
	if err != nil {
		return nil, err
	}
	rep, err := gate.GateRequests(base, new, sides[0], sides[1], opts)
	if rep != nil {
		rep.Provenance = check
	}
	if err == nil {
		rep.Warnings = append(rep.Warnings, "a side is a run sent by shards: every figure is judged on the pooled requests; the shards' benchmark lines, each its share of the load, are not compared")
	}
	return rep, err
}

// recordedSide reads a side of a gate on requests — a directory of
// shards' results, a samples file, or a .txt through the samples beside
// it — with its provenance, after holding each results file to the
// samples file beside it.
func recordedSide(side, p string) ([]sample.Sample, sample.Provenance, error) {
	if !isDir(p) && strings.HasSuffix(p, ".txt") {
		p = recording.SamplesBeside(p)
	}
	ss, _, err := sample.ReadAll([]string{p}, false)
	if err != nil {
		return nil, nil, err
	}
	files, err := sample.Files([]string{p})
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		record, err := sample.ReadProvenance([]string{f})
		if err != nil {
			return nil, nil, err
		}
		if txt := recording.TxtBeside(f); exists(txt) {
			if err := provenance.Agree(side, txt, f, recording.ReadHeader(txt), record); err != nil {
				return nil, nil, err
			}
		}
	}
	prov, err := sample.ReadProvenance([]string{p})
	return ss, prov, err
}

// unusable marks err as input no comparison can be made from, once.
func unusable(err error) error {
	if errors.Is(err, recording.ErrUnusable) {
		return err
	}
	return fmt.Errorf("%w: %v", recording.ErrUnusable, err)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
