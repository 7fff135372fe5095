package trace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// Rescale says how Synth changes a trace.
type Rescale struct {
	Speedup float64 // timestamps divided by it (2: twice the rate)
	// InputScale and OutputScale multiply the lengths (each at least 1
	// token after).
	InputScale, OutputScale float64
	// Subsample is the share of rows kept (0 < Subsample ≤ 1), drawn
	// from Seed, so that a week of production can become a short CI
	// replay at the same mix.
	Subsample float64
	Seed      uint64
}

// Validate reports a rescaling that cannot be done.
func (o Rescale) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"speedup", o.Speedup}, {"input scale", o.InputScale}, {"output scale", o.OutputScale}} {
		if !(f.v > 0 && f.v <= 1e6) {
			return fmt.Errorf("%s %v: want a factor > 0", f.name, f.v)
		}
	}
	if !(o.Subsample > 0 && o.Subsample <= 1) {
		return fmt.Errorf("subsample %v: want a share of rows > 0 and ≤ 1", o.Subsample)
	}
	return nil
}

// Block is the prompt tokens each hash id of the rescaled trace stands
// for: the block spec's stood for, scaled as the lengths are, so that the
// rows' shared leading blocks stay the same share of their prompts (with
// the lengths cut 50× but the blocks 512 tokens still, every prompt
// would be its first block: all shared).
func (o Rescale) Block(spec Spec) int {
	return max(1, int(math.Round(float64(spec.block())*o.InputScale)))
}

// Note is what a user must know to replay the trace Synth wrote to out:
// the block its hash ids now stand for, when the lengths were rescaled
// ("" when they were not).
func (o Rescale) Note(spec Spec, out string) string {
	if b := o.Block(spec); b != spec.block() {
		return fmt.Sprintf("note: its hash ids stand for %d prompt tokens each (%d × input scale %v): replay it as trace: {file: %s, block: %d}, and analyze it with -block %d", b, spec.block(), o.InputScale, out, b, b)
	}
	return ""
}

// Synth writes the trace spec names (its crop applied), rescaled, to w in
// Mooncake's format, and returns the rows it wrote. A row's own messages
// are not carried (the format has none): its lengths are.
func Synth(spec Spec, o Rescale, w io.Writer) (int, error) {
	if err := o.Validate(); err != nil {
		return 0, err
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x73796e7468)) // "synth"
	bw := bufio.NewWriter(w)
	n := 0
	scale := func(x int, by float64) int { return min(MaxTokens, max(1, int(math.Round(float64(x)*by)))) }
	err := Each(spec, func(row Row, off time.Duration) error {
		if o.Subsample < 1 && r.Float64() >= o.Subsample {
			return nil
		}
		at := float64(off) / o.Speedup
		if !(at < math.MaxInt64) {
			return fmt.Errorf("%s:%d: %v from the start is past what a timestamp holds (292 years) at speedup %v", spec.File, row.Line, off, o.Speedup)
		}
		n++
		out := Row{At: time.Duration(at), Input: scale(row.Input, o.InputScale),
			Output: scale(row.Output, o.OutputScale), Hashes: row.Hashes}
		return writeMooncake(bw, out)
	})
	if err != nil {
		return n, err
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: no row kept (subsample %v)", spec.File, o.Subsample)
	}
	return n, bw.Flush()
}
