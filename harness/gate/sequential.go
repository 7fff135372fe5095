package gate

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/recording"
)

// A sequential gate judges a candidate as it is recorded, at a few
// planned looks, and stops at the first that decides: a group-sequential
// design (O'Brien and Fleming's, by Lan and DeMets's α-spending). At the
// look that has a fraction t of the design's requests, each family may
// spend α·s(t) of its α in all, s(t) = 2 − 2Φ(z_{1−α/2}/√t)/α… (spend),
// which gives almost nothing to the early looks and nearly all of α to
// the last; a look flags a regression at the α it is given (the spending
// since the last look: Bonferroni over the looks, so that the family-wise
// false alarm of every look together is at most the fixed gate's α).
//
// A look stops the candidate as unchanged (futility) when even a lenient
// gate — every family at its futility level, the same tolerances — flags
// nothing and no figure asked for is blind: stopping for futility never
// raises the false-alarm rate, only lowers the power, which the design's
// ceiling (more requests than the fixed gate's at most) buys back. The
// numbers of docs/gate.md come from the gate's own simulations
// (TestGateSequential).

// futilityTolerance scales the tolerances at a futility look: a change
// must not show even at this share of its tolerance.
var futilityTolerance = 0.5

// futility is each family's level at which a look must flag nothing for
// the candidate to stop as unchanged.
var futility = map[string]float64{FamilyLatency: 0.45, FamilyQuality: 0.45, FamilyRuns: 0.3}

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
// decided (or the last), which look that was, and how.
type Sequential struct {
	*Report
	Look, Looks int
	// Decision is "regressed", "unchanged" (stopped for futility) or,
	// at the last look, the fixed gate's verdict at the α left.
	Decision string
	Fraction float64 // of the design's requests sent when it stopped
}

// spend is the α an O'Brien–Fleming-like spending function allows by
// fraction t of a design at level alpha: 2 − 2Φ(z_{1−α/2}/√t).
func spend(alpha, t float64) float64 {
	if t >= 1 {
		return alpha
	}
	if t <= 0 {
		return 0
	}
	return 2 - 2*inference.NormCDF(inference.NormQuantile(1-alpha/2)/math.Sqrt(t))
}

// GateSequential judges the candidate at each of looks (look(k) is the
// k-th, from 0) against base, and stops at the first look that decides.
func GateSequential(base recording.Source, looks int, look func(k int) (Look, error), opts Options) (*Sequential, error) {
	if looks < 1 {
		return nil, fmt.Errorf("sequential gate: %d looks: want at least 1", looks)
	}
	baseAt, err := rereadable(base)
	if err != nil {
		return nil, err
	}
	prev := 0.0
	for k := range looks {
		l, err := look(k)
		if err != nil {
			return nil, err
		}
		cand, err := rereadable(l.Source)
		if err != nil {
			return nil, err
		}
		t := l.Fraction
		if k == looks-1 {
			t = 1
		}
		if !(t > prev && t <= 1) {
			return nil, fmt.Errorf("sequential gate: look %d at fraction %g: want fractions rising to 1", k+1, l.Fraction)
		}
		at := opts
		at.Alpha, at.FamilyAlpha = 0, map[string]float64{}
		for _, f := range []string{FamilyLatency, FamilyQuality, FamilyRuns} {
			a := opts.alpha(f)
			at.FamilyAlpha[f] = spend(a, t) - spend(a, prev)
		}
		rep, err := gateFiles(baseAt(), cand(), judging{Options: at, interim: k < looks-1})
		if err != nil {
			return nil, err
		}
		out := &Sequential{Report: rep, Look: k + 1, Looks: looks, Fraction: t}
		switch {
		case rep.Failed():
			out.Decision = "regressed"
			return out, nil
		case k == looks-1:
			out.Decision = string(rep.Verdict())
			return out, nil
		}
		lenient := opts
		lenient.Alpha, lenient.FamilyAlpha = 0, futility
		fut, err := gateFiles(baseAt(), cand(), judging{Options: lenient, interim: true, tolScale: futilityTolerance})
		if err != nil {
			return nil, err
		}
		if !fut.Failed() && len(fut.Blind) == 0 {
			out.Decision = "unchanged"
			return out, nil
		}
		prev = t
	}
	panic("unreachable")
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
