package session

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestABAcrossAPIs: llmsla ab of one fixture through a model behind its
// own API (api: messages, the base) and the same model through an
// OpenAI-compatible gateway (api: chat, the candidate; the simulator told
// to add 5 ms before the first token, standing in for the gateway):
// interleaved, every request of both sides succeeds and is judged right,
// and the TTFT the gateway adds, pair for pair (gate.AddedTTFT, what the
// report prints), is what the simulators did, within the client's error:
// the same pairs' differences of the simulators' own instants (arrival
// to the first token's write) within the truth tests' 0.5 ms bound on a
// median, and so the 5 ms they were told to add within that and the
// simulators' own lateness (its timers wake late on a busy machine).
func TestABAcrossAPIs(t *testing.T) {
	const added = 5 * time.Millisecond
	const clientErr = 0.5 // ms, the truth tests' bound on a median's error (stream.medianBound)
	spec := func(ttft time.Duration) string {
		return "ttft=" + ttft.String() + ",ttft_jitter=0,prefill=0s,tpot=1ms,tpot_jitter=0.2,tokens=4,seed=3"
	}
	cfg := &config.Config{Source: "test", Scenarios: config.Presets(),
		Endpoints: []stream.Endpoint{
			{Name: "direct", Model: "sim", Simulated: true, API: stream.APIMessages},
			{Name: "gateway", Model: "sim", Simulated: true, API: stream.APIChat}},
		SimSpecs: map[string]string{"direct": spec(30 * time.Millisecond), "gateway": spec(30*time.Millisecond + added)}}
	s, err := New(cfg, Run{}, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	sc := Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl", System: "You are a helpful assistant. Answer with the label only."}
	base, cand, err := s.AB(context.Background(), sc, AB{Base: "direct", Candidate: "gateway",
		Levels: []load.Pacer{load.Closed(1), load.Closed(4)}, Runs: 3, N: 20, Warmup: 2, Seed: 1})
	require.NoError(t, err)
	require.Len(t, base, len(cand))

	// Each side again with the simulator's TTFT in place of the
	// measured one: as it was told (planned), and as it did (its
	// arrival to its first token's write).
	told := [2][]sample.Sample{slices.Clone(base), slices.Clone(cand)}
	did := [2][]sample.Sample{slices.Clone(base), slices.Clone(cand)}
	for i, name := range []string{"direct", "gateway"} {
		truth := map[string]sim.Truth{}
		for _, tr := range s.Sim(name).Truth() {
			truth[tr.ID] = tr
		}
		for j := range told[i] {
			smp := &told[i][j]
			require.True(t, smp.OK(), "%s %s: %s", name, smp.ID, smp.Err)
			require.NotNil(t, smp.Quality, "%s %s: judged", name, smp.ID)
			assert.True(t, smp.Quality.Pass(), "%s case %s: %s", name, smp.Case, smp.Quality.Detail)
			tr, ok := truth[smp.ID]
			require.True(t, ok, "%s %s: no truth", name, smp.ID)
			smp.TTFT = tr.QueueWait + tr.TTFTDelay
			did[i][j].TTFT = tr.FirstToken.Sub(tr.Received)
		}
	}
	adds, wantTold, wantDid := gate.AddedTTFT(base, cand), gate.AddedTTFT(told[0], told[1]), gate.AddedTTFT(did[0], did[1])
	require.Len(t, adds, 3, "concurrency=1, concurrency=4, and both pooled")
	require.Len(t, wantDid, 3)
	for i, a := range adds {
		t.Logf("%s %s: %+.3f ms (%+.3f … %+.3f) over %d pairs; the simulators told %+.3f ms, did %+.3f ms",
			a.Scenario, a.Level, a.Median, a.Lo, a.Hi, a.Pairs, wantTold[i].Median, wantDid[i].Median)
		want := 60
		if a.Level == "" {
			want = 120
		}
		assert.Equal(t, want, a.Pairs, "%s: every measured pair", a.Level)
		assert.InDelta(t, ms(added), wantTold[i].Median, 1e-6, "%s: the simulators were told to add 5 ms", a.Level)
		assert.InDelta(t, wantDid[i].Median, a.Median, clientErr, "%s: the TTFT the gateway adds, against what the simulators did", a.Level)
		late := math.Abs(wantDid[i].Median - ms(added))
		assert.InDelta(t, ms(added), a.Median, clientErr+late, "%s: the TTFT the gateway adds, against the 5 ms told (the simulators %.3f ms off it)", a.Level, late)
		assert.True(t, a.Lo <= a.Median && a.Median <= a.Hi, "%s: the interval holds the median", a.Level)
	}

	rep, err := gate.GateRequests("direct", "gateway", base, cand, gate.Options{AcrossEndpoints: true, AllowBlind: []string{"*"}})
	require.NoError(t, err)
	assert.Equal(t, adds, rep.Added, "the report carries what it prints")
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// TestABRefusesAnUnfitAPI: an A/B run of a scenario one endpoint's API
// cannot serve is refused before any request, naming the endpoint and
// its API.
func TestABRefusesAnUnfitAPI(t *testing.T) {
	cfg := &config.Config{Source: "test", Scenarios: config.Presets(),
		Endpoints: []stream.Endpoint{
			{Name: "emb", Model: "sim", Simulated: true, API: stream.APIEmbeddings},
			{Name: "chat", Model: "sim", Simulated: true}},
		SimSpecs: map[string]string{"emb": "", "chat": ""}}
	s, err := New(cfg, Run{}, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	o := AB{Base: "emb", Candidate: "chat", Levels: []load.Pacer{load.Closed(1)}, Runs: 2, N: 2}
	_, _, err = s.AB(context.Background(), Scenario{Name: "embeddings", Fixture: "fixtures/embeddings.jsonl", Embeddings: true}, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "embeddings endpoint=chat: not measured (the endpoint does not embed: it is api: chat")
	_, _, err = s.AB(context.Background(), Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"}, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "chat endpoint=emb: not measured (the endpoint does not generate text: it is api: embeddings")
	for _, name := range []string{"emb", "chat"} {
		assert.Empty(t, s.Sim(name).Truth(), "%s: no request sent", name)
	}
}
