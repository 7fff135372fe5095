package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// bucketsOf counts xs into buckets under bounds, as a server's histogram
// does (le: the first bound ≥ x).
func bucketsOf(bounds, xs []float64) Buckets {
	b := Buckets{Bounds: bounds, Counts: make([]float64, len(bounds)+1)}
	for _, x := range xs {
		b.Counts[sort.SearchFloat64s(bounds, x)]++
	}
	return b
}

// TestBucketsWithin: the bounds a histogram gives a percentile hold the
// percentile of the observations themselves (Percentile's, interpolated
// between closest ranks), for every percentile and many samples; the
// estimate lies within them.
func TestBucketsWithin(t *testing.T) {
	bounds := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + r.IntN(300)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Exp(r.NormFloat64() - 3) // ~50 ms, spread over the buckets, some past the last
		}
		b := bucketsOf(bounds, xs)
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		for _, p := range []float64{1, 50, 90, 95, 99, 100} {
			want := Percentile(sorted, p)
			lo, hi, ok := b.Within(p)
			require.True(t, ok)
			require.True(t, lo <= want && want <= hi, "trial %d n=%d p%.0f: %g outside (%g, %g]", trial, n, p, want, lo, hi)
			est := b.Estimate(p)
			require.True(t, lo <= est && est <= hi, "estimate %g outside (%g, %g]", est, lo, hi)
		}
	}
	_, _, ok := Buckets{}.Within(50)
	assert.False(t, ok, "nothing counted: no percentile")
	assert.True(t, math.IsNaN(Buckets{}.Estimate(50)))
}

// TestBucketsAdd: histograms of the same buckets add; of different
// buckets they are no histogram (Bad), never a wrong one.
func TestBucketsAdd(t *testing.T) {
	a := bucketsOf([]float64{1, 2}, []float64{0.5, 1.5})
	b := bucketsOf([]float64{1, 2}, []float64{3})
	require.True(t, a.Add(b))
	assert.Equal(t, []float64{1, 1, 1}, a.Counts)
	assert.False(t, a.Add(bucketsOf([]float64{1, 5}, []float64{3})))
	assert.True(t, a.Bad)
	assert.Equal(t, 0.0, a.N())
}

// TestServerMerge: runs of a level merge — counters add (unknown in one
// run is unknown), peaks take the higher, queue depths pool.
func TestServerMerge(t *testing.T) {
	one := NewServer()
	one.Readings, one.Sent, one.Requests, one.QueueMax, one.Queue = 3, 10, 10, 2, []float64{1, 2}
	two := NewServer()
	two.Readings, two.Sent, two.Requests, two.QueueMax, two.Queue, two.RSS = 4, 20, 25, 5, []float64{5}, 7
	var m Server
	m.Merge(one)
	m.Merge(two)
	assert.Equal(t, 7, m.Readings)
	assert.Equal(t, 30, m.Sent)
	assert.Equal(t, 35.0, m.Requests)
	assert.Equal(t, 5.0, m.QueueMax)
	assert.Equal(t, []float64{1, 2, 5}, m.Queue)
	assert.Equal(t, 7.0, m.RSS)
	assert.InDelta(t, 5.0/30, m.Foreign(), 1e-12)
	assert.True(t, math.IsNaN(m.Preemptions), "measured in neither")
	three := NewServer()
	three.Readings, three.Sent = 1, 5
	m.Merge(three)
	assert.True(t, math.IsNaN(m.Requests), "a run whose counter was not measured leaves the level's unknown")
	m.Shared = true
	assert.True(t, math.IsNaN(m.Foreign()), "shards' requests all reach the server")
}

// TestTTFTGap: inside the server's bounds (plus the network) the gap is
// 0; outside it is the distance, and the detail names both figures.
func TestTTFTGap(t *testing.T) {
	bounds := []float64{0.02, 0.04, 0.06, 0.08, 0.1, 0.25}
	server := func(ttfts ...float64) *Stats {
		srv := NewServer()
		srv.TTFT = bucketsOf(bounds, ttfts)
		return &Stats{Server: srv}
	}
	st := server(0.050, 0.052, 0.055, 0.058)
	st.TTFT = Describe([]float64{51, 53, 56, 59})
	st.TTFB = Describe([]float64{0.4, 0.5})
	gap, detail := st.TTFTGap()
	assert.Equal(t, 0.0, gap, detail)
	assert.NotContains(t, detail, "disagree")

	lying := server(0.100, 0.104, 0.110, 0.116) // 2× the client's
	lying.TTFT, lying.TTFB = st.TTFT, st.TTFB
	gap, detail = lying.TTFTGap()
	assert.InDelta(t, 100-59.0*0.95-51*0.05, gap, 10, detail)
	assert.Greater(t, gap, 20.0)
	assert.Contains(t, detail, "client and server disagree about TTFT: client ttft p50 54.5 ms")
	assert.Contains(t, detail, "server ttft p50 in (100, 250] ms")

	slow := server(0.050, 0.052, 0.055, 0.058)
	slow.TTFT, slow.TTFB = Describe([]float64{75, 75, 76, 77}), Describe([]float64{20})
	gap, _ = slow.TTFTGap()
	assert.Equal(t, 0.0, gap, "a client 20 ms later than the server's bucket is within its network time")

	// A client that woke late on a busy machine reads its first token
	// late by as much as its own error (CI: client p95 2.98 ms beside a
	// server's ≤ 1 ms and 1.47 ms to headers, its timers late p99 1.4 ms):
	// the client's error is allowed either side, and only that.
	busy := &Stats{Server: NewServer()}
	busy.Server.TTFT = bucketsOf([]float64{0.001, 0.005, 0.01}, []float64{0.0005, 0.0005, 0.0006, 0.0007})
	busy.TTFT, busy.TTFB = Describe([]float64{1.5, 1.8, 2.9, 3.0}), Describe([]float64{1.467})
	gap, _ = busy.TTFTGap()
	assert.Greater(t, gap, 0.0, "without the client's error the late read is a disagreement")
	busy.Server = busy.Server.WithClient(2.8, 2.8)
	gap, detail = busy.TTFTGap()
	assert.Equal(t, 0.0, gap, detail)
	assert.Contains(t, detail, "± the client's own error 2.8 ms")
	lying.Server = lying.Server.WithClient(2.8, 2.8)
	gap, _ = lying.TTFTGap()
	assert.Greater(t, gap, 20.0, "the client's error does not hide a server twice as slow")
	assert.Nil(t, (*Server)(nil).WithClient(1, 1))

	// A p95 of fewer than 20 readings is the largest one, which a single
	// stall moves: it is allowed the client's worst wake, not its p99
	// (CI beside two CPU-bound processes: 12 requests, server ≤ 5 ms,
	// client p95 40.1 ms, timers late p99 0.7 ms). A p95 of 40 readings
	// is not its largest, and keeps the p99's allowance.
	bounds5 := []float64{0.001, 0.005, 0.01, 0.02, 0.04}
	few := &Stats{Server: NewServer()}
	fast := []float64{0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003}
	few.Server.TTFT = bucketsOf(bounds5, fast)
	few.TTFT, few.TTFB = Describe([]float64{3, 3.5, 4, 4, 4, 4.1, 4.1, 4.2, 4.5, 5, 5, 40.1}), Describe([]float64{1.9})
	few.Server = few.Server.WithClient(1.4, 40)
	gap, detail = few.TTFTGap()
	assert.Equal(t, 0.0, gap, detail)
	assert.Contains(t, detail, "± the client's own error 40 ms")
	few.Server = few.Server.WithClient(1.4, 1.4)
	gap, _ = few.TTFTGap()
	assert.Greater(t, gap, 5.0, "the p99's allowance does not cover one stall")
	many := &Stats{Server: NewServer()}
	var srv40, cli40 []float64
	for i := range 40 {
		srv40 = append(srv40, 0.003)
		cli40 = append(cli40, 4)
		if i >= 37 {
			cli40[i] = 40 // three stalled readings: the p95 is one of them
		}
	}
	many.Server.TTFT = bucketsOf(bounds5, srv40)
	many.TTFT, many.TTFB = Describe(cli40), Describe([]float64{1.9})
	many.Server = many.Server.WithClient(1.4, 40)
	gap, _ = many.TTFTGap()
	assert.Greater(t, gap, 30.0, "three stalled readings of 40 are not one stall")

	none := &Stats{TTFT: st.TTFT}
	gap, _ = none.TTFTGap()
	assert.True(t, math.IsNaN(gap), "no server histogram: not measured")
}

// TestTokensDisagree: usage against the streamed chunks, request by
// request, with the documented allowances.
func TestTokensDisagree(t *testing.T) {
	n := func(v int) *int { return &v }
	cases := map[string]struct {
		s            sample.Sample
		checked      bool
		bad, switch_ bool
	}{
		"equal":              {sample.Sample{UsageTokens: n(6), Chunks: 6, Content: "aaaaaa"}, true, false, false},
		"eos":                {sample.Sample{UsageTokens: n(7), Chunks: 6, Content: "aaaaaa"}, true, false, false},
		"five over":          {sample.Sample{UsageTokens: n(11), Chunks: 6, Content: "aaaaaa"}, true, true, false},
		"below the chunks":   {sample.Sample{UsageTokens: n(4), Chunks: 6, Content: "aaaaaa"}, true, true, true},
		"multi-byte":         {sample.Sample{UsageTokens: n(7), Chunks: 2, Content: "日本"}, true, false, false}, // 1 + (3−1)·2 allowed
		"multi-byte beyond":  {sample.Sample{UsageTokens: n(8), Chunks: 2, Content: "日本"}, true, true, false},
		"hidden reasoning":   {sample.Sample{UsageTokens: n(30), Chunks: 6, Content: "aaaaaa", ReasoningTokens: 24, ReasoningSource: sample.ReasoningUsage}, true, false, false},
		"tool call":          {sample.Sample{UsageTokens: n(40), Chunks: 1, ToolCalls: []sample.ToolCall{{Name: "f"}}}, true, false, false},
		"tool call below":    {sample.Sample{UsageTokens: n(0), Chunks: 1, ToolCalls: []sample.ToolCall{{Name: "f"}}}, true, true, true},
		"no usage":           {sample.Sample{Chunks: 6}, false, false, false},
		"failed":             {sample.Sample{UsageTokens: n(1), Chunks: 6, ErrKind: sample.KindTruncated}, false, false, false},
		"answer cut":         {sample.Sample{UsageTokens: n(900), Chunks: 6, ContentCut: true}, true, false, false},
		"streamed reasoning": {sample.Sample{UsageTokens: n(90), Chunks: 60, Reasoning: 300}, true, false, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, checked := TokensDisagree(&tc.s)
			assert.Equal(t, tc.checked, checked)
			assert.Equal(t, tc.bad, d != nil, "%+v", d)
			if d != nil {
				assert.Equal(t, tc.switch_, d.Switched)
			}
		})
	}
}

// TestTokensOfRun: Summarize counts the disagreements and names the
// first, with the switch to the client's own count.
func TestTokensOfRun(t *testing.T) {
	var samples []sample.Sample
	for i := range 20 {
		u := 6
		switch i {
		case 3:
			u = 11
		case 7:
			u = 2
		}
		samples = append(samples, sample.Sample{Scenario: "chat", Endpoint: "e", Seq: i, ID: "id-" + string(rune('a'+i)), UsageTokens: &u, Chunks: 6,
			Content: "aaaaaa", Total: time.Second, Start: time.Unix(1, 0)})
	}
	st := Summarize(samples, nil)
	assert.Equal(t, 20, st.Tokens.Checked)
	assert.Equal(t, 2, st.Tokens.Disagree)
	assert.Equal(t, 1, st.Tokens.Switched)
	assert.InDelta(t, 0.1, st.Tokens.Rate(), 1e-12)
	d := st.Tokens.Detail()
	assert.True(t, strings.HasPrefix(d, "2 of 20 requests: usage and streamed chunks disagree, 1 with the client's own count used; "), d)
	assert.Contains(t, d, "seq 3 id-d: usage 11 > 6 chunks + 1 allowed")
	assert.Contains(t, d, "seq 7 id-h: usage 2 < 6 chunks, the client's count used")
}
