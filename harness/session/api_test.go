package session

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// apiSession is simSession with the endpoint behind api.
func apiSession(t *testing.T, api stream.API, spec string) (*Session, *config.Config) {
	t.Helper()
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true, Kind: stream.KindVLLM, API: api}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": spec}}
	s, err := New(cfg, Run{}, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, cfg
}

// TestScenariosThroughEachAPI: the shipped chat, extraction (structured
// output: text.format json_schema on Responses, a forced tool on
// Messages), tools and agent-loop fixtures run through the Responses and
// Messages APIs as through chat: every request succeeds, each answer is
// judged right exactly when the simulator did not make it wrong or
// broken, every agent loop reaches its final answer, and the provenance
// names the API.
func TestScenariosThroughEachAPI(t *testing.T) {
	scenarios := []struct {
		sc   Scenario
		spec string
		n    int
	}{
		{Scenario{Name: "chat", Fixture: "fixtures/classify.jsonl"}, "ttft=1ms,tpot=0s,wrong=0.2,seed=11", 60},
		{Scenario{Name: "extraction", Fixture: "fixtures/extract.jsonl", Structured: true}, "ttft=1ms,tpot=0s,wrong=0.2,invalid_json=0.1,seed=11", 60},
		{Scenario{Name: "tools", Fixture: "fixtures/tools.jsonl"}, "ttft=1ms,tpot=0s,tool_wrong=0.2,tool_badjson=0.1,seed=5", 60},
		{Scenario{Name: "tools", Fixture: "fixtures/agent.jsonl"}, "ttft=1ms,tpot=0s,seed=3", 8},
	}
	for _, api := range []stream.API{stream.APIResponses, stream.APIMessages} {
		for _, c := range scenarios {
			t.Run("api="+string(api)+"/fixture="+c.sc.Fixture, func(t *testing.T) {
				s, cfg := apiSession(t, api, c.spec)
				src, err := s.Source(c.sc)
				require.NoError(t, err)
				conf := cfg.Scenario(c.sc.Name, "sim")
				conf.Warmup = 0
				samples, err := s.Measure(context.Background(), Cell{Scenario: c.sc.Name, Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(4)}, Fixture: src}, c.n)
				require.NoError(t, err)
				truth := map[string]sim.Truth{}
				for _, tr := range s.Sim("sim").Truth() {
					truth[tr.ID] = tr
				}
				bad := 0
				for _, smp := range samples {
					require.True(t, smp.OK(), "%s: %s", smp.ID, smp.Err)
					require.NotNil(t, smp.Quality, smp.ID)
					tr, ok := truth[smp.ID]
					require.True(t, ok, smp.ID)
					wrong := tr.Wrong || tr.InvalidJSON || tr.ToolWrong || tr.ToolBadJSON
					bad += btoi(wrong)
					assert.Equal(t, !wrong, smp.Quality.Pass(), "case %s (wrong=%v broken=%v tool_wrong=%v tool_broken=%v): %s; got %q",
						smp.Case, tr.Wrong, tr.InvalidJSON, tr.ToolWrong, tr.ToolBadJSON, smp.Quality.Detail, smp.Quality.Got)
					assert.Equal(t, tr.OutputTokens, smp.OutputTokens, "%s: output tokens", smp.ID)
				}
				if c.sc.Fixture == "fixtures/agent.jsonl" {
					loops := map[string]sample.Sample{}
					for _, smp := range samples {
						if !smp.Measured() {
							continue // cold and warm-up: a loop's first step alone
						}
						if last, ok := loops[smp.Session]; !ok || smp.Step > last.Step {
							loops[smp.Session] = smp
						}
					}
					assert.Len(t, loops, 8)
					for id, last := range loops {
						assert.Empty(t, last.ToolCalls, "%s ends with its final answer", id)
					}
				} else {
					assert.Positive(t, bad, "the injected faults show up")
				}
				p := s.Provenance(context.Background(), []Scenario{c.sc})
				assert.Equal(t, string(api), p[sample.ProvenanceKey("endpoint", "sim", "api")])
				if api == stream.APIMessages {
					assert.Equal(t, stream.DefaultAnthropicVersion, p[sample.ProvenanceKey("endpoint", "sim", "anthropic_version")])
				} else {
					assert.Contains(t, p[sample.ProvenanceKey("endpoint", "sim", "request", "conversation")], "no previous_response_id")
				}
				require.NoError(t, p.Check())
			})
		}
	}
}

// TestEmbeddingsScenario: the shipped embeddings fixture on an endpoint
// of api: embeddings (the simulator's bag-of-words vectors): every
// request succeeds, every case ranks its paraphrase above its unrelated
// text, the prompt tokens are the simulator's, and the scenario is unfit
// for a generating endpoint (and a generating one for it), said without
// a request.
func TestEmbeddingsScenario(t *testing.T) {
	s, cfg := apiSession(t, stream.APIEmbeddings, "ttft=2ms,prefill=50us,seed=3")
	sc := Scenario{Name: "embeddings", Fixture: "fixtures/embeddings.jsonl", Embeddings: true}
	src, err := s.Source(sc)
	require.NoError(t, err)
	conf := cfg.Scenario(sc.Name, "sim")
	conf.Warmup = 0
	samples, err := s.Measure(context.Background(), Cell{Scenario: sc.Name, Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(8)}, Fixture: src}, 48)
	require.NoError(t, err)
	truth := map[string]sim.Truth{}
	for _, tr := range s.Sim("sim").Truth() {
		truth[tr.ID] = tr
	}
	for _, smp := range samples {
		require.True(t, smp.OK(), "%s: %s", smp.ID, smp.Err)
		require.NotNil(t, smp.Quality)
		assert.True(t, smp.Quality.Pass(), "case %s: %s", smp.Case, smp.Quality.Detail)
		assert.Equal(t, truth[smp.ID].PromptTokens, smp.PromptTokens, smp.ID)
	}
	_, unfit := Unfit(sc, stream.Endpoint{Name: "chat"})
	assert.True(t, unfit, "an embeddings scenario on a chat endpoint")
	_, unfit = Unfit(Scenario{Name: "chat"}, cfg.Endpoints[0])
	assert.True(t, unfit, "a chat scenario on an embeddings endpoint")
	_, unfit = Unfit(sc, cfg.Endpoints[0])
	assert.False(t, unfit)
}

// TestCacheThroughEachAPI: bust's marker, first in the first user turn,
// keeps every prompt off the cache through Responses and Messages too
// (their usage says 0 cached, as the simulator found), and warm's shared
// prefix is a hit for half the requests, whose cached tokens the API's
// usage carries exactly (Responses' input_tokens_details.cached_tokens,
// Messages' cache_read_input_tokens).
func TestCacheThroughEachAPI(t *testing.T) {
	for _, api := range []stream.API{stream.APIResponses, stream.APIMessages} {
		t.Run("api="+string(api), func(t *testing.T) {
			samples, truth, _ := cacheRunAPI(t, api, "ttft=2ms,prefill=50us,tpot=0s,tokens=2,jitter=0,cache=100000", sample.CacheBust, 0, 20)
			for _, smp := range samples {
				require.NotNil(t, smp.CachedTokens)
				assert.Zero(t, *smp.CachedTokens, "%s cached under bust", smp.ID)
			}
			samples, truth, v := cacheRunAPI(t, api, "ttft=5ms,prefill=200us,tpot=0s,tokens=2,jitter=0,cache=100000", sample.CacheWarm, 512, 20)
			hits := 0
			for _, smp := range samples {
				tr := truth[smp.ID]
				require.NotNil(t, smp.CachedTokens)
				assert.Equal(t, tr.CachedTokens, *smp.CachedTokens, "%s: cached tokens", smp.ID)
				assert.Equal(t, tr.PromptTokens, smp.PromptTokens, "%s: prompt tokens", smp.ID)
				if smp.Measured() && tr.CachedTokens > 0 {
					hits++
				}
			}
			assert.Equal(t, 10, hits, "half the measured requests behind the warmed prefix")
			assert.Equal(t, 10, v.Stats.Cache.TTFTHit.N)
		})
	}
}

// TestConversationThroughEachAPI: a conversation sends its whole history
// on every API (never previous_response_id): each turn's prompt is the
// one the simulator counted — the last turn, its answer and the new
// message — and the last turn of each conversation is judged right.
func TestConversationThroughEachAPI(t *testing.T) {
	for _, api := range []stream.API{stream.APIResponses, stream.APIMessages} {
		t.Run("api="+string(api), func(t *testing.T) {
			fixture := conversationFixture(t, 3, 4, `"0s"`)
			conf := config.Scenario{MaxTokens: 16, Objectives: objective.MustParse(map[string]float64{"error_rate_max": 0})}
			all, v, srv := converseAPI(t, api, "ttft=2ms,tpot=100us,tokens=8,jitter=0", fixture, load.Sessions(1), 12, conf)
			samples := measured(all)
			truth := truthOf(t, srv, samples)
			for i, smp := range samples {
				require.True(t, smp.OK(), smp.Err)
				assert.Equal(t, truth[i].PromptTokens, smp.PromptTokens, "turn %d of %s", smp.Turn, smp.Case)
				if j := prevTurn(samples, i); j >= 0 {
					assert.Equal(t, samples[j].PromptTokens+samples[j].OutputTokens+22, smp.PromptTokens, "turn %d holds the last turn, its answer and its own 22 words", smp.Turn)
				}
			}
			assert.Equal(t, v.Stats.Quality.MatchChecked, v.Stats.Quality.Matched, "the last turns answered as the cases expect")
			assert.Positive(t, v.Stats.Quality.MatchChecked)
		})
	}
}
