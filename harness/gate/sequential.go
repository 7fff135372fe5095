package gate

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/recording"
)

// A sequential gate judges a candidate as it is recorded, at a few
// planned looks, and stops at the first that decides: a group-sequential
// design (O'Brien and Fleming's, by Lan and DeMets's α-spending). At the
// look with information fraction t, each family may have spent α·s(t) of
// its α in all (inference.Spend), which gives almost nothing to the early
// looks and nearly all of α to the last; each look tests at the nominal
// level whose rejection there, and at no look before, has the probability
// spent since the last look (inference.SpendingLevels: the looks' z
// statistics are correlated as a Brownian motion's, so that the last of
// looks at 3, 6, 10 and 14 runs against 10 tests at 0.039 where
// Bonferroni over the looks left 0.016).
// A figure's information grows as 1/(1/m + 1/n) with the base's m runs and
// the candidate's n: the base is complete from the first look, so 3 of the
// candidate's 14 runs are 40% of the information. Figures over runs, which
// a Mann-Whitney test over a few runs cannot flag at an early look's
// level, are set aside until a look whose level they can reach (the last).
//
// A look stops the candidate as unchanged (futility) when no figure asked
// for is blind and no figure might still become a regression: none is
// worse beyond half its tolerance with a conditional power of at least
// futilityPower — the chance, if its change goes on as it shows so far,
// that its p-value ends under its family's α over the family's size
// (inference.ConditionalPower). The figure's own p-value decides, not
// Holm's over the family: a lenient gate whose Holm-adjusted p-values had
// to stay over 0.45 stopped a tail change of +15% at the first look on a
// raw p of 0.04 (0.79 adjusted over 21 latency figures), 9 times in 200.
// The bound grows with the information, as a futility bound should: at
// the looks after 3, 6 and 10 of 14 runs a latency figure (of 21) beyond
// half its tolerance keeps the candidate going up to a p-value of about
// 0.064, 0.022 and 0.008. Stopping for futility never raises the
// false-alarm rate, only lowers the power, which the design's ceiling
// (more requests than the fixed gate's at most) buys back. The numbers of docs/gate.md come
// from the gate's own simulations (TestGateSequential).

// futilityTolerance scales the tolerances at a futility look: a change
// must not show even at this share of its tolerance.
var futilityTolerance = 0.5

// futilityPower is the conditional power below which a figure no longer
// keeps the candidate going.
var futilityPower = 0.3

// maxStream bounds a side given as a stream, which each look reads again.
const maxStream = 256 << 20

// Look is the candidate's recording at one look, cumulative (every
// request of the looks before, and more), with its share of the design's
// requests (the last look's is 1).
type Look struct {
	Source   recording.Source
	Fraction float64
}

// Sequential is a sequential gate's outcome: the report of the look that
// decided (or the last), which look that was, and how. A report of an
// interim look has no sensitivity (its MDEs would be at the look's tiny
// level, not the design's).
type Sequential struct {
	*Report
	Look, Looks int
	// Decision is "regressed", "unchanged" (stopped for futility) or,
	// at the last look, the fixed gate's verdict at the level left.
	Decision string
	Fraction float64 // of the design's requests sent when it stopped
	// Information is the share of the design's information at the look
	// that decided, Levels each family's nominal level there.
	Information float64
	Levels      map[string]float64
	// Undecided says, for each look before the one that decided, what
	// kept the candidate going: the figures that might still regress, or
	// were blind.
	Undecided []string
}

// GateSequential judges the candidate at each of looks (look(k) is the
// k-th, from 0) against base, and stops at the first look that decides.
func GateSequential(base recording.Source, looks int, look func(k int) (Look, error), opts Options) (*Sequential, error) {
	return gateSequential(base, looks, look, judging{Options: opts})
}

// gateSequential is GateSequential as j says.
func gateSequential(base recording.Source, looks int, look func(k int) (Look, error), j judging) (*Sequential, error) {
	if looks < 1 {
		return nil, fmt.Errorf("sequential gate: %d looks: want at least 1", looks)
	}
	opts := j.Options
	baseAt, err := rereadable(base)
	if err != nil {
		return nil, err
	}
	m, err := fewestRuns(baseAt(), opts)
	if err != nil {
		return nil, err
	}
	prev := 0.0
	var info []float64 // each look's information fraction so far
	var undecided []string
	for k := range looks {
		l, err := look(k)
		if err != nil {
			return nil, err
		}
		cand, err := rereadable(l.Source)
		if err != nil {
			return nil, err
		}
		f := l.Fraction
		if k == looks-1 {
			f = 1
		}
		if !(f > prev && f <= 1) {
			return nil, fmt.Errorf("sequential gate: look %d at fraction %g: want fractions rising to 1", k+1, l.Fraction)
		}
		n, err := fewestRuns(cand(), opts)
		if err != nil {
			return nil, err
		}
		info = append(info, information(m, n, f))
		last := k == looks-1
		at := j
		at.Alpha, at.FamilyAlpha = 0, map[string]float64{}
		for _, fam := range []string{FamilyLatency, FamilyQuality, FamilyRuns} {
			at.FamilyAlpha[fam] = inference.SpendingLevels(opts.alpha(fam), info)[k]
		}
		at.interim = !last
		at.noSensitivity = j.noSensitivity || !last
		rep, err := gateFiles(baseAt(), cand(), at)
		if err != nil {
			return nil, err
		}
		out := &Sequential{Report: rep, Look: k + 1, Looks: looks, Fraction: f, Information: info[k], Levels: at.FamilyAlpha, Undecided: undecided}
		switch {
		case rep.Failed():
			out.Decision = "regressed"
			return out, nil
		case last:
			out.Decision = string(rep.Verdict())
			return out, nil
		}
		lenient := j
		lenient.interim, lenient.tolScale, lenient.futility = true, futilityTolerance, info[k]
		lenient.noSensitivity = true
		fut, err := gateFiles(baseAt(), cand(), lenient)
		if err != nil {
			return nil, err
		}
		if !fut.Failed() && len(fut.Blind) == 0 {
			out.Decision = "unchanged"
			return out, nil
		}
		undecided = append(undecided, going(k+1, fut))
		prev = f
	}
	panic("unreachable")
}

// going says what kept the candidate going at look k: the figures the
// futility look found might still regress, then those it found blind.
func going(k int, fut *Report) string {
	var worse []string
	for _, f := range fut.Regressions {
		worse = append(worse, fmt.Sprintf("%s %s %.4g → %.4g %s", f.Benchmark, f.Unit, f.Old, f.New, f.Change()))
	}
	var why []string
	if len(worse) > 0 {
		why = append(why, firstOf(worse, 3)+" might still regress")
	}
	if len(fut.Blind) > 0 {
		why = append(why, names(fut.Blind, 3)+" blind")
	}
	return fmt.Sprintf("look %d undecided: %s", k, strings.Join(why, "; "))
}

// information is the share of the design's information at a look where
// the candidate has n runs, f of the design's, against a base of m: a
// difference of means over runs has variance ∝ 1/m + 1/n.
func information(m, n int, f float64) float64 {
	if f >= 1 {
		return 1
	}
	M, N := float64(m), float64(n)
	return (1/M + f/N) / (1/M + 1/N)
}

// fewestRuns is the fewest runs of any benchmark of src.
func fewestRuns(src recording.Source, opts Options) (int, error) {
	runs, err := Check(src, opts)
	if err != nil {
		return 0, err
	}
	fewest := 0
	for _, r := range runs {
		if fewest == 0 || r < fewest {
			fewest = r
		}
	}
	if fewest == 0 {
		return 0, fmt.Errorf("%w: %s: no benchmark runs", recording.ErrUnusable, src.Name)
	}
	return fewest, nil
}

// rereadable returns src as a source each call reads from its start: a
// file is opened again, a stream read once, here, bounded.
func rereadable(src recording.Source) (func() recording.Source, error) {
	if src.R == nil {
		return func() recording.Source { return src }, nil
	}
	b, err := io.ReadAll(io.LimitReader(src.R, maxStream+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	if len(b) > maxStream {
		return nil, fmt.Errorf("%s: over %d bytes: give the sequential gate a file", src.Name, maxStream)
	}
	return func() recording.Source {
		s := src
		s.R = bytes.NewReader(b)
		return s
	}, nil
}
