package stats

import (
	"fmt"
	"strconv"

	"github.com/llmsla/llmsla/harness/sample"
)

// batchWarnings says when a level of embeddings batches (batch=8) sent
// requests of another number of inputs: its inputs/s and latencies are
// then of another load than its label says, as a concurrency never
// reached is (loadWarnings).
func (st *Stats) batchWarnings(samples []sample.Sample) {
	v, ok := st.Level.Get("batch")
	if !ok {
		return
	}
	want, err := strconv.Atoi(v)
	if err != nil {
		return
	}
	off, other := 0, 0
	for i := range samples {
		s := &samples[i]
		if s.Cold || s.Warmup || s.Inputs == want {
			continue
		}
		off, other = off+1, s.Inputs
	}
	if off > 0 {
		st.Warnings = append(st.Warnings, fmt.Sprintf(
			"%s: %d of %d requests carried another number of inputs than %d (%d, one of them), so these figures are not of that batch",
			st.Level, off, st.Attempted, want, other))
	}
}
