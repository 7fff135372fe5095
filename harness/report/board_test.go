package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// endpoint describes a made-up endpoint: its TTFT, how much it varies
// from request to request, and how often it answers wrong.
type endpoint struct {
	name         string
	ttft         time.Duration
	jitter       float64
	wrong        float64
	price        Price
	skipScenario string
}

var scenarios = []string{"batch", "chat", "extraction", "summary"}

// samples makes n measured requests per scenario for each endpoint, from a
// fixed seed: per-request TTFTs around the endpoint's, answers wrong at its
// rate, token counts from usage.
func samples(n int, eps ...endpoint) []sample.Sample {
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []sample.Sample
	for _, ep := range eps {
		for _, sc := range scenarios {
			if sc == ep.skipScenario {
				continue
			}
			at := t0
			for i := range n {
				ttft := time.Duration(float64(ep.ttft) * (1 + ep.jitter*rng.NormFloat64()))
				right := rng.Float64() >= ep.wrong
				s := sample.Sample{Scenario: sc, Endpoint: ep.name, Model: "m-" + ep.name, Level: "concurrency=1",
					Run: ep.name + "/" + sc, Seq: i, Start: at, TTFT: ttft, TTFA: ttft, Total: ttft + 40*time.Millisecond,
					PromptTokens: 100 + 10*i, OutputTokens: 20, TokenSource: sample.TokensUsage, Chunks: 20, Finish: "stop",
					Quality: &sample.Quality{MatchChecked: true, Matched: right}}
				at = at.Add(s.Total)
				out = append(out, s)
			}
		}
	}
	return out
}

var (
	usd = func(in, out float64) Price {
		return Price{InputPerMTok: in, OutputPerMTok: out, Currency: "USD"}
	}
	// The three endpoints of a model selection: fast but sloppy, slow but
	// accurate, and one slower and sloppier than both.
	fast  = endpoint{name: "fast", ttft: 20 * time.Millisecond, jitter: 0.1, wrong: 0.25, price: usd(0.15, 0.60)}
	slow  = endpoint{name: "slow", ttft: 200 * time.Millisecond, jitter: 0.1, price: usd(0.50, 1.50)}
	worse = endpoint{name: "worse", ttft: 300 * time.Millisecond, jitter: 0.1, wrong: 0.3, price: usd(1, 3)}
)

func board(t testing.TB, n int, prefer Prefer, eps ...endpoint) *Board {
	t.Helper()
	prices := map[string]Price{}
	for _, ep := range eps {
		if ep.price.Currency != "" {
			prices[ep.name] = ep.price
		}
	}
	sla := objective.MustParse(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01})
	return NewBoard(samples(n, eps...), Options{
		Objectives: func(string, string) objective.Objectives { return sla },
		Prices:     prices, Prefer: prefer})
}

func TestBoardParetoFrontAndRecommendation(t *testing.T) {
	b := board(t, 20, "", fast, slow, worse)
	require.Len(t, b.Endpoints, 3)
	assert.True(t, b.Entry("fast").Pareto, "fastest and cheapest: on the front")
	assert.True(t, b.Entry("slow").Pareto, "most accurate: on the front")
	w := b.Entry("worse")
	assert.False(t, w.Pareto)
	var by []string
	for _, d := range w.DominatedBy {
		by = append(by, d.By)
	}
	assert.Contains(t, by, "slow", "slow is more accurate, faster and cheaper than worse")

	assert.False(t, b.Entry("fast").Meets, "25% wrong misses the implied 90% accuracy")
	assert.True(t, b.Entry("slow").Meets)
	assert.Equal(t, "slow", b.Recommended)
	assert.Contains(t, b.Recommendation, "Choose slow: the only endpoint that meets every objective of every scenario")
}

// TestBoardTies: a 1 ms difference on 20 noisy requests is not a ranking,
// and does not pick a winner; a 100 ms one is.
func TestBoardTies(t *testing.T) {
	a := endpoint{name: "a", ttft: 100 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	b1 := endpoint{name: "b", ttft: 101 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	for _, prefer := range []Prefer{PreferCost, PreferLatency} {
		t.Run(string(prefer), func(t *testing.T) {
			b := board(t, 5, prefer, a, b1) // 4 scenarios × 5 = 20 requests each
			assert.True(t, b.Entry("a").Pareto)
			assert.True(t, b.Entry("b").Pareto, "tied on every figure: neither dominates")
			assert.Empty(t, b.Recommended, "a tie picks no winner")
			assert.Contains(t, b.Recommendation, "a and b meet every objective of every scenario and are tied")
			for _, r := range b.Ranks {
				assert.Equal(t, []bool{true}, r.Tied, "%s", r)
				assert.Contains(t, r.String(), " ≈ ")
			}
		})
	}
	t.Run("100 ms apart", func(t *testing.T) {
		far := b1
		far.ttft = 200 * time.Millisecond
		b := board(t, 5, PreferCost, a, far)
		assert.Equal(t, "a", b.Recommended, "same price, so the faster one")
		assert.Contains(t, b.Recommendation, "it ties with b on cost per 1k and is better on ttft p95")
		assert.False(t, b.Entry("b").Pareto)
	})
}

// TestBoardFailsClosed: what was not measured is said, and passes nothing.
func TestBoardFailsClosed(t *testing.T) {
	noPrice := slow
	noPrice.price = Price{}
	partial := noPrice
	partial.name, partial.skipScenario = "partial", "summary"
	b := board(t, 10, "", noPrice, partial)

	p := b.Entry("partial")
	assert.False(t, p.Meets, "a scenario not run is an objective not met")
	assert.Contains(t, p.Violations, "summary: not measured on this endpoint")
	assert.Equal(t, "slow", b.Recommended)

	assert.Equal(t, []string{"cost per 1k: not compared (no price in the configuration)"}, b.NotCompared)
	var text bytes.Buffer
	b.Text(&text, false)
	assert.Contains(t, text.String(), "cost of slow: not measured: no price in the configuration")
	assert.Contains(t, text.String(), "not run")

	var js bytes.Buffer
	require.NoError(t, b.JSON(&js))
	var doc struct {
		Endpoints []struct {
			CostPer1k *float64 `json:"cost_per_1k"`
		}
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	assert.Nil(t, doc.Endpoints[0].CostPer1k, "not measured is null, not 0")

	none := board(t, 10, "", fast, worse)
	assert.Empty(t, none.Recommended)
	assert.Contains(t, none.Recommendation, "No endpoint meets every objective of every scenario: fast misses")
}

// TestBoardFormats pins the markdown and JSON of the three-endpoint board
// (golden files; -update rewrites them) and keeps the markdown short
// enough for a pull-request comment.
func TestBoardFormats(t *testing.T) {
	b := board(t, 20, "", fast, slow, worse)
	var md, js, csv bytes.Buffer
	b.Markdown(&md)
	require.NoError(t, b.JSON(&js))
	require.NoError(t, b.CSV(&csv))
	lines := strings.Count(md.String(), "\n")
	assert.Less(t, lines, 60, "3 endpoints × 4 scenarios in markdown:\n%s", md.String())
	assert.Equal(t, 1+3*5, strings.Count(csv.String(), "\n"), "a header, and per endpoint its overall row and 4 scenarios")
	golden(t, "board.md", md.Bytes())
	golden(t, "board.json", js.Bytes())
}

// golden compares got with testdata/name; on a mismatch it writes
// testdata/name.got beside it for a diff.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	if !bytes.Equal(want, got) {
		require.NoError(t, os.WriteFile(path+".got", got, 0o644))
		t.Errorf("%s differs from the golden file; diff %s %s.got (go test -update accepts it)", name, path, path)
	}
}

// TestBoardPrefer: among endpoints meeting every objective, the cheapest,
// or with PreferLatency the fastest.
func TestBoardPrefer(t *testing.T) {
	cheap := endpoint{name: "cheap", ttft: 200 * time.Millisecond, jitter: 0.1, price: usd(0.1, 0.1)}
	quick := endpoint{name: "quick", ttft: 50 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	b := board(t, 10, PreferCost, cheap, quick)
	assert.Equal(t, "cheap", b.Recommended)
	assert.Contains(t, b.Recommendation, "of the 2 endpoints that meet every objective of every scenario, it is the cheapest (0.0")
	b = board(t, 10, PreferLatency, cheap, quick)
	assert.Equal(t, "quick", b.Recommended)
	assert.Contains(t, b.Recommendation, "it is the fastest (")
	assert.True(t, b.Entry("cheap").Pareto && b.Entry("quick").Pareto)
}

// TestBoardLeavesOutSearchSteps: the steps of a capacity search fail past
// the limit by design; they neither fail an endpoint's objectives nor
// enter its figures.
func TestBoardLeavesOutSearchSteps(t *testing.T) {
	ss := samples(10, slow)
	for i := range 5 {
		s := ss[i]
		s.Level, s.TTFT, s.Run = "search=capacity/rate=50", 5*time.Second, "search"
		s.Fail(&sample.RequestError{Kind: sample.KindTimeoutHeaders})
		ss = append(ss, s)
	}
	sla := objective.MustParse(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01})
	b := NewBoard(ss, Options{Objectives: func(string, string) objective.Objectives { return sla }})
	e := b.Entry("slow")
	assert.True(t, e.Meets, "%v", e.Violations)
	assert.Equal(t, 40, e.Overall.Stats.Attempted)
	assert.Contains(t, b.Summary(), "5 requests of capacity-search steps left out")
}

// TestCompareTailAgainstBulk: when p95 says one thing and the median the
// other (a few slow requests in a faster endpoint), neither is ranked
// better on latency, though Mann-Whitney finds the distributions differ.
func TestCompareTailAgainstBulk(t *testing.T) {
	a := endpoint{name: "a", ttft: 30 * time.Millisecond, jitter: 0.05}
	b := endpoint{name: "b", ttft: 45 * time.Millisecond, jitter: 0.05}
	ss := samples(10, a, b)
	for i := range ss {
		if ss[i].Endpoint == "a" && ss[i].Seq >= 8 { // 8 of 40 requests stalled
			ss[i].TTFT = 200 * time.Millisecond
		}
	}
	bd := NewBoard(ss, Options{})
	ttft := bd.Axes[1]
	require.Equal(t, "ttft p95", ttft.Label)
	ea, eb := bd.Entry("a"), bd.Entry("b")
	require.Greater(t, ttft.Value(ea), ttft.Value(eb), "a's p95 is the stalls")
	require.Less(t, ttft.Center(ea), ttft.Center(eb), "a's median is faster")
	require.True(t, Significant(ttft.Values(ea), ttft.Values(eb), 0.05))
	assert.Equal(t, Tied, ttft.Compare(ea, eb, 0.05))
	assert.Equal(t, Tied, ttft.Compare(eb, ea, 0.05))
}

// TestRecommendUnknownIsNotATie: preferring cost, an endpoint without a
// price, or priced in another currency, cannot be compared on cost; that
// stops the choice with a note instead of passing on to latency as if the
// two cost the same.
func TestRecommendUnknownIsNotATie(t *testing.T) {
	priced := endpoint{name: "priced", ttft: 200 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	unpriced := endpoint{name: "unpriced", ttft: 50 * time.Millisecond, jitter: 0.1}
	b := board(t, 10, PreferCost, priced, unpriced)
	assert.Empty(t, b.Recommended, b.Recommendation)
	assert.Equal(t, "priced and unpriced meet every objective of every scenario, but cost per 1k cannot be compared between priced and unpriced (unpriced: no price in the configuration): no endpoint is chosen; price every endpoint, in one currency, or prefer latency.", b.Recommendation)

	euro := endpoint{name: "euro", ttft: 50 * time.Millisecond, jitter: 0.1, price: Price{InputPerMTok: 1, OutputPerMTok: 1, Currency: "EUR"}}
	b = board(t, 10, PreferCost, priced, euro)
	assert.Empty(t, b.Recommended, b.Recommendation)
	assert.Contains(t, b.Recommendation, "cost per 1k cannot be compared between euro (EUR) and priced (USD)")
	var cost Ranking
	for _, r := range b.Ranks {
		if r.Axis.Role == RoleCost {
			cost = r
		}
	}
	assert.Equal(t, "cost per 1k: euro 0.165 EUR ? priced 0.165 USD", cost.String(), "two currencies are not tied")
	var js bytes.Buffer
	require.NoError(t, b.JSON(&js))
	assert.Contains(t, js.String(), `"not_comparable": [
        [
          "euro",
          "priced"
        ]
      ]`)

	b = board(t, 10, PreferLatency, priced, unpriced)
	assert.Equal(t, "unpriced", b.Recommended, "latency decides before cost is needed")
}

// TestRecommendAmongSeveralTied: every endpoint tied with the best on the
// preferred figure goes on to the next, not only the two best; and when
// none is separated, every tied one is named.
func TestRecommendAmongSeveralTied(t *testing.T) {
	a := endpoint{name: "a", ttft: 200 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	b1 := endpoint{name: "b", ttft: 200 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	c := endpoint{name: "c", ttft: 50 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	b := board(t, 10, PreferCost, a, b1, c)
	assert.Equal(t, "c", b.Recommended, b.Recommendation)
	assert.Contains(t, b.Recommendation, "Choose c: of the 3 endpoints that meet every objective of every scenario, it ties with a and b on cost per 1k and is better on ttft p95")

	c.ttft = 201 * time.Millisecond
	b = board(t, 10, PreferCost, a, b1, c)
	assert.Empty(t, b.Recommended, b.Recommendation)
	assert.Contains(t, b.Recommendation, "Of the 3 endpoints that meet every objective of every scenario, a, b and c are tied")

	far := endpoint{name: "far", ttft: 200 * time.Millisecond, jitter: 0.1, price: usd(5, 5)}
	b = board(t, 10, PreferCost, a, b1, c, far)
	assert.Empty(t, b.Recommended, b.Recommendation)
	assert.Contains(t, b.Recommendation, "Of the 4 endpoints that meet every objective of every scenario, a, b and c are tied", "far costs more: out")
}

// TestBoardMissingLevel: an endpoint measured at fewer load levels than
// another pools only the light ones, and its p95 looks better for it: like
// a scenario not run, a level not run is an objective not met.
func TestBoardMissingLevel(t *testing.T) {
	full := endpoint{name: "full", ttft: 50 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	light := endpoint{name: "light", ttft: 50 * time.Millisecond, jitter: 0.1, price: usd(1, 1)}
	ss := samples(10, full, light)
	for _, lv := range []sample.Level{"concurrency=5", "concurrency=10"} {
		for _, s := range samples(10, full) {
			s.Level, s.Run, s.TTFT, s.TTFA, s.Total = lv, s.Run+"/"+string(lv), 3*s.TTFT, 3*s.TTFA, s.Total+2*s.TTFT
			ss = append(ss, s)
		}
	}
	sla := objective.MustParse(map[string]float64{"ttft_p95_ms": 600, "error_rate_max": 0.01})
	b := NewBoard(ss, Options{Objectives: func(string, string) objective.Objectives { return sla },
		Prices: map[string]Price{"full": full.price, "light": light.price}})
	l := b.Entry("light")
	assert.False(t, l.Meets)
	assert.Contains(t, l.Violations, "chat concurrency=5: not measured on this endpoint")
	assert.Contains(t, l.Violations, "chat concurrency=10: not measured on this endpoint")
	assert.Equal(t, []sample.Level{"concurrency=5", "concurrency=10"}, l.Scenarios[1].Missing)
	assert.True(t, b.Entry("full").Meets)
	assert.True(t, b.Entry("full").Pareto, "not dominated by an endpoint that ran only its light level: %v", b.Entry("full").DominatedBy)
	assert.Equal(t, "full", b.Recommended, b.Recommendation)
	var text bytes.Buffer
	b.Text(&text, false)
	assert.Contains(t, text.String(), "FAIL (2 levels not run)")
}

// TestBoardNotesNameMissedObjectives: text and markdown say which
// objectives an endpoint missed, not only how many; the short board (after
// bench's verdict table, which lists them) does not repeat them.
func TestBoardNotesNameMissedObjectives(t *testing.T) {
	b := board(t, 20, "", fast, slow, worse)
	var text, md, short bytes.Buffer
	b.Text(&text, false)
	b.Markdown(&md)
	b.Text(&short, true)
	want := "fast missed 2 objectives: extraction concurrency=1: accuracy 60% < 90% (n=20); summary concurrency=1: accuracy 80% < 90% (n=20)"
	assert.Contains(t, text.String(), want)
	assert.Contains(t, md.String(), "- "+want)
	assert.Contains(t, text.String(), "worse missed 4 objectives: batch concurrency=1: accuracy 80% < 90% (n=20); chat")
	assert.Contains(t, text.String(), "; and 1 more (-format json lists every one)")
	assert.NotContains(t, short.String(), "missed")
}

// TestBoardNotApplicable: on a board of endpoints that embed beside
// endpoints that generate, a scenario one's API cannot serve is "n/a" —
// no violation, no miss in the count, in the notes and the JSON — and
// never a pass: no endpoint that serves only part of the board is
// recommended over it, and the recommendation says why. A generating
// scenario another generating endpoint did not run is still a miss.
func TestBoardNotApplicable(t *testing.T) {
	a, b2 := slow, slow
	a.name, b2.name = "chat-a", "chat-b"
	all := samples(10, a, b2)
	emb := samples(10, endpoint{name: "emb", ttft: 0, jitter: 0})
	for i := range emb {
		if emb[i].Scenario != "chat" {
			continue
		}
		s := emb[i]
		s.Scenario, s.Inputs, s.TTFT, s.TTFA = "embeddings", 3, 0, 0
		all = append(all, s)
	}
	sla := objective.MustParse(map[string]float64{"error_rate_max": 0.01})
	bd := NewBoard(all, Options{Objectives: func(string, string) objective.Objectives { return sla }})

	e := bd.Entry("emb")
	require.NotNil(t, e)
	assert.Equal(t, []string{"batch", "chat", "extraction", "summary"}, e.NotApplicable)
	assert.Empty(t, e.Violations, "not applicable is no miss")
	assert.True(t, e.Meets, "it met every objective of what it serves")
	for _, name := range []string{"chat-a", "chat-b"} {
		c := bd.Entry(name)
		assert.Equal(t, []string{"embeddings"}, c.NotApplicable, name)
		assert.Empty(t, c.Violations, name)
	}
	assert.Empty(t, bd.Recommended, "none serves the whole board")
	assert.Contains(t, bd.Recommendation, "No endpoint serves every scenario of the board")
	assert.Contains(t, bd.Recommendation, "emb meets every objective of what it serves, batch, chat, extraction and summary not applicable")

	var text bytes.Buffer
	bd.Text(&text, false)
	assert.Contains(t, text.String(), "ok (4 n/a)")
	assert.Contains(t, text.String(), "emb: batch, chat, extraction and summary not applicable (the scenario generates text; the endpoint embeds): not run, neither missed nor met")
	assert.Contains(t, text.String(), "chat-a: embeddings not applicable (the scenario embeds; the endpoint generates text)")
	assert.NotContains(t, text.String(), "not measured on this endpoint")

	var js bytes.Buffer
	require.NoError(t, bd.JSON(&js))
	var doc struct {
		Endpoints []struct {
			Name          string   `json:"name"`
			NotApplicable []string `json:"not_applicable"`
			Violations    []string `json:"violations"`
			Scenarios     []struct {
				Scenario      string `json:"scenario"`
				NotApplicable string `json:"not_applicable"`
			} `json:"scenarios"`
		}
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	for _, ej := range doc.Endpoints {
		if ej.Name == "emb" {
			assert.Equal(t, e.NotApplicable, ej.NotApplicable)
			assert.Equal(t, "not applicable: the scenario generates text; the endpoint embeds", ej.Scenarios[0].NotApplicable)
		}
	}

	// Beside the embeddings endpoint, a chat endpoint that skipped a
	// generating scenario misses it: only embeddings is n/a there.
	partial := b2
	partial.skipScenario = "summary"
	bd = NewBoard(append(samples(10, a, partial), embOnly(all)...), Options{Objectives: func(string, string) objective.Objectives { return sla }})
	assert.Contains(t, bd.Entry("chat-b").Violations, "summary: not measured on this endpoint")
	assert.Equal(t, []string{"embeddings"}, bd.Entry("chat-b").NotApplicable)
	assert.False(t, bd.Entry("chat-b").Meets)
	assert.Contains(t, bd.Recommendation, "chat-a meets every objective of what it serves, embeddings not applicable")
}

// embOnly is the samples of the endpoint emb.
func embOnly(all []sample.Sample) []sample.Sample {
	var out []sample.Sample
	for _, s := range all {
		if s.Endpoint == "emb" {
			out = append(out, s)
		}
	}
	return out
}
