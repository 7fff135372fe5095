package recording

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// A recording's benchmark values, and the checks of two recordings before
// they are compared: what makes a comparison unusable, and what only
// deserves a warning.

// Key is a figure of a recording: a benchmark and a unit.
type Key struct{ Bench, Unit string }

// Values holds one recording's benchmark values (a results file, or
// several read as one) in first-seen order, as the gate compares them.
type Values struct {
	Vals       map[Key][]float64
	Order      []Key
	Benches    map[string]bool
	BenchOrder []string
	Iters      map[string]int // of each benchmark's first run
	Runs       map[string]int // results of each benchmark
	// Procs is each benchmark's -N GOMAXPROCS suffix, when the name is
	// keyed without it; Mixed records a benchmark seen with two.
	Procs      map[string]string
	MatchProcs bool
	Mixed      []string
	// Plain is each benchmark's name without the -N suffix, which is how
	// its samples are named, when MatchProcs keys it with the suffix.
	Plain map[string]string
}

// NewValues is an empty Values; matchProcs keys benchmarks with their
// -N GOMAXPROCS suffix.
func NewValues(matchProcs bool) *Values {
	return &Values{Vals: map[Key][]float64{}, Benches: map[string]bool{}, Iters: map[string]int{}, Runs: map[string]int{},
		Procs: map[string]string{}, MatchProcs: matchProcs, Plain: map[string]string{}}
}

// benchName is a result's benchmark name as the gate keys it: without the
// -N GOMAXPROCS suffix unless the names must match exactly. The suffix is
// the client's core count: it says where the measuring ran, not what was
// measured, and a baseline recorded on a 2-core CI runner must still
// compare with a candidate recorded on an 8-core one.
func benchName(res *benchfmt.Result, matchProcs bool) (name, procs string) {
	if matchProcs {
		return res.Name.String(), ""
	}
	base, parts := res.Name.Parts()
	var b strings.Builder
	b.Write(base)
	for _, p := range parts {
		if len(p) > 0 && p[0] == '-' {
			procs = string(p[1:])
			continue
		}
		b.Write(p)
	}
	return b.String(), procs
}

// Add adds one benchmark result.
func (s *Values) Add(res *benchfmt.Result) {
	bench, procs := benchName(res, s.MatchProcs)
	if p, ok := s.Procs[bench]; ok && p != procs {
		s.Mixed = append(s.Mixed, fmt.Sprintf("%s: GOMAXPROCS %s and %s", bench, orOne(p), orOne(procs)))
	}
	s.Procs[bench] = procs
	if !s.Benches[bench] {
		s.Benches[bench] = true
		s.BenchOrder = append(s.BenchOrder, bench)
		s.Iters[bench] = res.Iters
		s.Plain[bench] = bench
		if s.MatchProcs {
			s.Plain[bench], _ = benchName(res, false)
		}
	}
	s.Runs[bench]++
	for _, v := range res.Values {
		k := Key{bench, UnitOf(v)}
		if _, ok := s.Vals[k]; !ok {
			s.Order = append(s.Order, k)
		}
		s.Vals[k] = append(s.Vals[k], ValueOf(v))
	}
}

// orOne is a GOMAXPROCS suffix as a number: none is 1.
func orOne(procs string) string {
	if procs == "" {
		return "1"
	}
	return procs
}

// CheckProcs fails when one side holds a benchmark at two GOMAXPROCS
// (go test -cpu 1,2), which a comparison would otherwise pool, and warns
// when the sides (named names) were recorded with different ones.
func CheckProcs(names [2]string, sides [2]*Values) (warnings []string, err error) {
	for i, s := range sides {
		if len(s.Mixed) > 0 {
			return nil, fmt.Errorf("%w: %s holds benchmarks at several GOMAXPROCS, which would be pooled:\n\t%s\ncompare them apart with -match-procs, or record one -cpu",
				ErrUnusable, names[i], list(s.Mixed, 5))
		}
	}
	differ := map[[2]string]int{}
	var order [][2]string
	for _, b := range sides[0].BenchOrder {
		p1, ok := sides[1].Procs[b]
		p := [2]string{sides[0].Procs[b], p1}
		if !ok || p[0] == p[1] {
			continue
		}
		if differ[p] == 0 {
			order = append(order, p)
		}
		differ[p]++
	}
	for _, p := range order {
		warnings = append(warnings, fmt.Sprintf("%d benchmarks ran at GOMAXPROCS %s in %s and %s in %s: compared anyway, as the client's core count is not what is measured; a client starved of CPU measures itself (-match-procs keeps them apart)",
			differ[p], orOne(p[0]), names[0], orOne(p[1]), names[1]))
	}
	return warnings, nil
}

// CheckCommon fails when a benchmark of the base is missing from the new
// recording, unless allowMissing, and when no benchmark is on both sides:
// then nothing was compared and a pass would be a lie. Benchmarks only in
// the new recording are new and have nothing to be compared with; they
// are a warning. filter is the one the recordings were read with.
func CheckCommon(names [2]string, sides [2]*Values, allowMissing bool, filter string) (warnings []string, err error) {
	common := 0
	var missing []string
	for _, b := range sides[0].BenchOrder {
		if sides[1].Benches[b] {
			common++
		} else {
			missing = append(missing, b)
		}
	}
	for _, b := range sides[1].BenchOrder {
		if !sides[0].Benches[b] {
			warnings = append(warnings, fmt.Sprintf("%s only in %s; not compared", b, names[1]))
		}
	}
	if common > 0 && len(missing) > 0 {
		if !allowMissing {
			return nil, fmt.Errorf("%w: %d of the %d benchmarks of %s are missing from %s, so the candidate was not measured on them (a run cut short?):\n\t%s\nre-record the candidate; to compare only some benchmarks say so with -filter, or pass -allow-missing",
				ErrUnusable, len(missing), len(sides[0].BenchOrder), names[0], names[1], list(missing, 10))
		}
		for _, b := range missing {
			warnings = append(warnings, fmt.Sprintf("%s only in %s; not compared (-allow-missing)", b, names[0]))
		}
	}
	if common > 0 {
		return append(warnings, iterWarnings(names, sides)...), nil
	}
	if len(sides[0].Benches) == 0 || len(sides[1].Benches) == 0 {
		return nil, fmt.Errorf("%w: no benchmark results match -filter %q in %s and %s; widen the filter", ErrUnusable, filter, names[0], names[1])
	}
	return nil, fmt.Errorf("%w: %s and %s have no benchmark in common; names must match exactly, including sub-benchmark keys (the -N GOMAXPROCS suffix is ignored unless -match-procs): record both with the same suite and configuration (make bench then make baseline records a baseline here)", ErrUnusable, names[0], names[1])
}

// iterWarnings warn when a benchmark's runs had different iteration counts
// on the two sides. The name does not carry it, yet a run's figures depend
// on it: one iteration is one request, and the p95 of 10 requests sits
// nearer the maximum than the p95 of 20, so the comparison is biased.
func iterWarnings(names [2]string, sides [2]*Values) (warnings []string) {
	type pair struct{ a, b int }
	first, count := map[pair]string{}, map[pair]int{}
	var order []pair
	for _, b := range sides[0].BenchOrder {
		n, ok := sides[1].Iters[b]
		p := pair{sides[0].Iters[b], n}
		if !ok || p.a == p.b {
			continue
		}
		if count[p] == 0 {
			first[p] = b
			order = append(order, p)
		}
		count[p]++
	}
	for _, p := range order {
		more := ""
		if count[p] > 1 {
			more = fmt.Sprintf(" and %d more", count[p]-1)
		}
		warnings = append(warnings, fmt.Sprintf("%s%s: %d iterations per run in %s, %d in %s; percentiles over different numbers of requests are biased: record both with the same go test -benchtime (llmsla bench -n)",
			first[p], more, p.a, names[0], p.b, names[1]))
	}
	return warnings
}

// list joins names one per line, at most max of them.
func list(names []string, max int) string {
	if len(names) > max {
		return strings.Join(names[:max], "\n\t") + fmt.Sprintf("\n\t(and %d more)", len(names)-max)
	}
	return strings.Join(names, "\n\t")
}
