package gate

import (
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/recording"
)

// sourceRequests reads the samples of each source. Without samples on a
// source it returns nil, and the report says that every figure is judged
// over runs.
func sourceRequests(rep *Report, srcs ...recording.Source) ([]*requests, error) {
	rqs := make([]*requests, len(srcs))
	for i, src := range srcs {
		ss, err := src.ReadSamples()
		if err != nil {
			return nil, err
		}
		if ss == nil {
			what := "no samples"
			if src.SamplesPath != "" {
				what = "no " + src.SamplesPath
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s: every figure judged over runs, which sees less than per-request tests (llmsla bench records X.samples.jsonl beside X.txt; llmsla baseline promotes both)",
				src.Name, what))
			return nil, nil
		}
		rqs[i] = groupRequests(src.SamplesName(), ss)
	}
	return rqs, nil
}

// benchGroups matches both sides' samples with the benchmarks both files
// hold, grouped by scenario × endpoint. Samples that contradict their
// benchfmt file (another number of runs of a benchmark) are unusable: the
// two were not recorded together.
func benchGroups(rep *Report, rqs [2]*requests, sides [2]*recording.Values) ([]group, error) {
	var index [2]map[string]reqKey
	for i, rq := range rqs {
		index[i] = map[string]reqKey{}
		for _, k := range rq.order {
			index[i][k.benchKey()] = k
		}
	}
	var gs grouper
	var unmatched []string
	for _, bench := range sides[0].BenchOrder {
		if !sides[1].Benches[bench] {
			continue
		}
		key := benchKey(sides[0].Plain[bench])
		var gl groupLevel
		gl.bench = bench
		found := true
		for i, rq := range rqs {
			k, ok := index[i][key]
			if !ok {
				found = false
				break
			}
			c := rq.cells[k]
			if n := sides[i].Runs[bench]; len(c.runs) != n {
				return nil, fmt.Errorf("%w: %s has %d runs of %s and %s has %d: they were not recorded together (or one was cut short); give the samples file of the same run",
					recording.ErrUnusable, rq.name, len(c.runs), bench, [2]string{rep.Base, rep.New}[i], n)
			}
			gl.cells[i] = c
			gl.level = k.level
		}
		if !found {
			unmatched = append(unmatched, bench)
			continue
		}
		gl.units = map[string]bool{}
		for _, k := range sides[0].Order {
			if _, ok := sides[1].Vals[k]; ok && k.Bench == bench {
				gl.units[k.Unit] = true
			}
		}
		gs.add(index[0][key], gl)
	}
	if len(unmatched) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no samples of %s on both sides (a benchmark named otherwise than scenario/endpoint=…/level?); judged over runs",
			strings.Join(unmatched, ", ")))
	}
	return gs.groups(), nil
}

// requestGroups matches the cells of two sets of samples by scenario,
// endpoint and level, grouped by scenario × endpoint. A cell of the base
// the new side lacks is an error — a candidate that skipped a level or a
// scenario must not pass — unless allowMissing, when it is a warning.
func requestGroups(rep *Report, rqs [2]*requests, allowMissing bool) ([]group, error) {
	var gs grouper
	var missing []string
	for _, k := range rqs[0].order {
		c1, ok := rqs[1].cells[k]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s %s", groupLabel(k.scenario, k.endpoint), k.level))
			continue
		}
		gs.add(k, groupLevel{level: k.level, cells: [2]*cell{rqs[0].cells[k], c1}})
	}
	for _, k := range rqs[1].order {
		if _, ok := rqs[0].cells[k]; !ok {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s %s: only in %s; not compared", groupLabel(k.scenario, k.endpoint), k.level, rqs[1].name))
		}
	}
	if len(missing) > 0 && !allowMissing {
		return nil, fmt.Errorf("%w: %s lacks what %s measured (%s); rerun it whole, or pass -allow-missing to compare what both have",
			recording.ErrUnusable, rqs[1].name, rqs[0].name, strings.Join(missing, ", "))
	}
	for _, m := range missing {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: only in %s; not compared (-allow-missing)", m, rqs[0].name))
	}
	return gs.groups(), nil
}

// grouper gathers levels into groups by scenario × endpoint, in
// first-seen order.
type grouper struct {
	by    map[string]*group
	order []*group
}

func (gs *grouper) add(k reqKey, gl groupLevel) {
	label := groupLabel(k.scenario, k.endpoint)
	g := gs.by[label]
	if g == nil {
		if gs.by == nil {
			gs.by = map[string]*group{}
		}
		g = &group{label: label}
		gs.by[label] = g
		gs.order = append(gs.order, g)
	}
	g.levels = append(g.levels, gl)
}

func (gs *grouper) groups() []group {
	out := make([]group, len(gs.order))
	for i, g := range gs.order {
		out[i] = *g
	}
	return out
}
