package gate

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestAddedTTFT: the TTFT the candidate adds is the median of the pairs'
// differences — slots 2k and 2k+1 of a run, one each side, the same case
// — per level and, with several, pooled; a pair with a failure, a
// warm-up, no first token (embeddings) or two cases is left out; and the
// report prints it.
func TestAddedTTFT(t *testing.T) {
	var base, cand []sample.Sample
	pair := func(level sample.Level, run string, k int, b, c time.Duration, mod func(b, c *sample.Sample)) {
		sb := sample.Sample{Scenario: "chat", Level: level, Run: run, Seq: 2 * k, Case: "c" + string(rune('a'+k)), TTFT: b, Endpoint: "direct"}
		sc := sample.Sample{Scenario: "chat", Level: level, Run: run, Seq: 2*k + 1, Case: sb.Case, TTFT: c, Endpoint: "gateway"}
		if k%2 == 1 { // the draw put the candidate first
			sb.Seq, sc.Seq = sc.Seq, sb.Seq
		}
		if mod != nil {
			mod(&sb, &sc)
		}
		base, cand = append(base, sb), append(cand, sc)
	}
	ms := time.Millisecond
	for k := range 9 {
		pair("concurrency=1", "r1", k, 40*ms, 45*ms+time.Duration(k-4)*100*time.Microsecond, nil) // +4.6 … +5.4, median +5
		pair("concurrency=4", "r2", k, 40*ms, 43*ms, nil)
	}
	pair("concurrency=1", "r1", 9, 40*ms, 90*ms, func(_, c *sample.Sample) { c.ErrKind = sample.KindMidstream })
	pair("concurrency=1", "r1", 10, 40*ms, 90*ms, func(b, _ *sample.Sample) { b.Warmup = true })
	pair("concurrency=1", "r1", 11, 40*ms, 90*ms, func(_, c *sample.Sample) { c.Case = "other" })
	pair("concurrency=1", "r1", 12, 0, 90*ms, nil) // an embeddings request: no first token

	added := AddedTTFT(base, cand)
	require.Len(t, added, 3)
	assert.Equal(t, Added{Scenario: "chat", Level: "concurrency=1", Pairs: 9, Median: 5, Lo: added[0].Lo, Hi: added[0].Hi}, added[0])
	assert.InDelta(t, 4.6, added[0].Lo, 0.25, "the interval's order statistics")
	assert.InDelta(t, 5.4, added[0].Hi, 0.25)
	assert.Equal(t, sample.Level("concurrency=4"), added[1].Level)
	assert.Equal(t, 3.0, added[1].Median)
	assert.Equal(t, sample.Level(""), added[2].Level, "both levels pooled, last")
	assert.Equal(t, 18, added[2].Pairs)

	one := func(ss []sample.Sample) []sample.Sample {
		return slices.DeleteFunc(slices.Clone(ss), func(s sample.Sample) bool { return s.Level != "concurrency=4" })
	}
	assert.Len(t, AddedTTFT(one(base), one(cand)), 1, "one level: no pooled line")

	var out bytes.Buffer
	writeAdded(&out, "direct", "gateway", added)
	assert.Contains(t, out.String(), "ttft gateway adds to direct, request for request")
	assert.Contains(t, out.String(), "  chat concurrency=1: +5 ms (")
	assert.Contains(t, out.String(), ") over 9 pairs\n")
	assert.Contains(t, out.String(), "  chat (its levels pooled): ")
}
