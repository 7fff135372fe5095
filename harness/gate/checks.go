package gate

import (
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/recording"
)

// Checks of the two sides before any test: what makes a comparison
// unusable, and what only deserves a warning.

// checkProcs fails when one side holds a benchmark at two GOMAXPROCS
// (go test -cpu 1,2), which the gate would otherwise pool, and warns when
// the sides were recorded with different ones.
func checkProcs(rep *Report, sides [2]*side) error {
	for i, s := range sides {
		if len(s.mixed) > 0 {
			return fmt.Errorf("%w: %s holds benchmarks at several GOMAXPROCS, which would be pooled:\n\t%s\ncompare them apart with -match-procs, or record one -cpu",
				recording.ErrUnusable, [2]string{rep.Base, rep.New}[i], list(s.mixed, 5))
		}
	}
	differ := map[[2]string]int{}
	var order [][2]string
	for _, b := range sides[0].benchOrder {
		p1, ok := sides[1].procs[b]
		p := [2]string{sides[0].procs[b], p1}
		if !ok || p[0] == p[1] {
			continue
		}
		if differ[p] == 0 {
			order = append(order, p)
		}
		differ[p]++
	}
	for _, p := range order {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d benchmarks ran at GOMAXPROCS %s in %s and %s in %s: compared anyway, as the client's core count is not what is measured; a client starved of CPU measures itself (-match-procs keeps them apart)",
			differ[p], orOne(p[0]), rep.Base, orOne(p[1]), rep.New))
	}
	return nil
}

// checkCommon fails when a benchmark of the base is missing from the new
// file, unless the options say that is fine, and when no benchmark is on
// both sides: then nothing was compared and a pass would be a lie.
// Benchmarks only in the new file are new and have nothing to be
// compared with; they are a warning.
func checkCommon(rep *Report, sides [2]*side, opts Options) error {
	common := 0
	var missing []string
	for _, b := range sides[0].benchOrder {
		if sides[1].benches[b] {
			common++
		} else {
			missing = append(missing, b)
		}
	}
	for _, b := range sides[1].benchOrder {
		if !sides[0].benches[b] {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s only in %s; not compared", b, rep.New))
		}
	}
	if common > 0 && len(missing) > 0 {
		if !opts.AllowMissing {
			return fmt.Errorf("%w: %d of the %d benchmarks of %s are missing from %s, so the candidate was not measured on them (a run cut short?):\n\t%s\nre-record the candidate; to compare only some benchmarks say so with -filter, or pass -allow-missing",
				recording.ErrUnusable, len(missing), len(sides[0].benchOrder), rep.Base, rep.New, list(missing, 10))
		}
		for _, b := range missing {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s only in %s; not compared (-allow-missing)", b, rep.Base))
		}
	}
	if common > 0 {
		warnIters(rep, sides)
		return nil
	}
	if len(sides[0].benches) == 0 || len(sides[1].benches) == 0 {
		return fmt.Errorf("%w: no benchmark results match -filter %q in %s and %s; widen the filter", recording.ErrUnusable, opts.Filter, rep.Base, rep.New)
	}
	return fmt.Errorf("%w: %s and %s have no benchmark in common; names must match exactly, including sub-benchmark keys (the -N GOMAXPROCS suffix is ignored unless -match-procs): record both with the same suite and configuration (make bench then make baseline records a baseline here)", recording.ErrUnusable, rep.Base, rep.New)
}

// warnIters warns when a benchmark's runs had different iteration counts
// on the two sides. The name does not carry it, yet a run's figures depend
// on it: one iteration is one request, and the p95 of 10 requests sits
// nearer the maximum than the p95 of 20, so the comparison is biased.
func warnIters(rep *Report, sides [2]*side) {
	type pair struct{ a, b int }
	first, count := map[pair]string{}, map[pair]int{}
	var order []pair
	for _, b := range sides[0].benchOrder {
		n, ok := sides[1].iters[b]
		p := pair{sides[0].iters[b], n}
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
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s%s: %d iterations per run in %s, %d in %s; percentiles over different numbers of requests are biased: record both with the same go test -benchtime (llmsla bench -n)",
			first[p], more, p.a, rep.Base, p.b, rep.New))
	}
}

// list joins names one per line, at most max of them.
func list(names []string, max int) string {
	if len(names) > max {
		return strings.Join(names[:max], "\n\t") + fmt.Sprintf("\n\t(and %d more)", len(names)-max)
	}
	return strings.Join(names, "\n\t")
}
