package stats

import (
	"math"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestITLPooled: the ITL of a run pools the gaps of its successful warm
// requests, within the histogram's 1/128 of the percentiles of the raw
// gaps, with n, min, max and mean exact.
func TestITLPooled(t *testing.T) {
	hist := func(gaps ...time.Duration) *sample.Hist {
		h := new(sample.Hist)
		for _, g := range gaps {
			h.Add(g)
		}
		return h
	}
	ms := time.Millisecond
	ok := func(h *sample.Hist) sample.Sample {
		return sample.Sample{Start: time.Now(), TTFT: ms, Total: 10 * ms, OutputTokens: 5, Finish: "stop", ITL: h}
	}
	failed := ok(hist(time.Hour))
	failed.ErrKind = sample.KindTruncated
	warm := ok(hist(time.Hour))
	warm.Warmup = true
	samples := []sample.Sample{
		ok(hist(1*ms, 2*ms, 3*ms)), ok(hist(4*ms, 5*ms)), ok(nil), failed, warm,
		ok(hist(1500*time.Microsecond, 2500*time.Microsecond, 7*ms, 9*ms, 10*ms)),
	}
	st := Summarize(samples, nil)
	raw := Describe([]float64{1, 2, 3, 4, 5, 1.5, 2.5, 7, 9, 10})
	if st.ITL.N != raw.N || st.ITL.Min != raw.Min || st.ITL.Max != raw.Max || math.Abs(st.ITL.Mean-raw.Mean) > 1e-12 {
		t.Errorf("ITL n %d min %v max %v mean %v, want exact %d %v %v %v", st.ITL.N, st.ITL.Min, st.ITL.Max, st.ITL.Mean, raw.N, raw.Min, raw.Max, raw.Mean)
	}
	for _, p := range []int{50, 90, 95, 99} {
		got, _ := st.ITL.At(p)
		want, _ := raw.At(p)
		if math.Abs(got-want) > want/128 {
			t.Errorf("ITL p%d = %v, raw %v", p, got, want)
		}
	}
	if e := Summarize([]sample.Sample{ok(nil)}, nil).ITL; e.N != 0 || !math.IsNaN(e.P50) {
		t.Errorf("no gaps: %+v, want n 0 and NaN", e)
	}
}
