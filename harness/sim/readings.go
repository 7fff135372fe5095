package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// ReadingErrors pairs each sample with the truth of its request and
// returns how far the client's readings of the first token and of the end
// of the stream are from the instants the server wrote them, in
// microseconds: what a measurement benchmark reports. A failed sample, or
// one the server has no record of, is an error.
func (s *Server) ReadingErrors(samples []sample.Sample) (ttft, total []float64, err error) {
	truth := map[string]Truth{}
	for _, tr := range s.Truth() {
		truth[tr.ID] = tr
	}
	us := func(got, want time.Time) float64 { return math.Abs(float64(got.Sub(want)) / 1e3) }
	for _, smp := range samples {
		tr, ok := truth[smp.ID]
		if !smp.OK() || !ok {
			return nil, nil, fmt.Errorf("sample %d: %s (truth found: %v)", smp.Seq, smp.Err, ok)
		}
		ttft = append(ttft, us(smp.Start.Add(smp.TTFT), tr.FirstToken))
		total = append(total, us(smp.Start.Add(smp.Total), tr.Last))
	}
	return ttft, total, nil
}
