package suites

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/ollama/ollamatest"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

// TestOllamaPrefixCache measures, on the real server and from its own
// timings (prompt_eval_duration of the native API), what cache: bust is
// for: the same long prompt asked again is prefilled from the cache of the
// KV slot (llama.cpp reuses the longest common prefix), while the same
// prompt behind a new marker is prefilled whole. Then it checks that the
// marker leaves the chat scenario's accuracy as it was.
func TestOllamaPrefixCache(t *testing.T) {
	srv := ollamatest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	long := load.SharedPrefix(1200) + "\n\nSummarize the text above in one sentence."
	prefill := func(marker string) ollama.Timings {
		t.Helper()
		msgs := []ollama.Message{{Role: "user", Content: long}}
		if marker != "" { // where cache: bust puts it: first in the user message
			msgs[0].Content = marker + "\n\n" + long
		}
		r, err := ollama.Chat(ctx, srv.Host(), ollama.ChatRequest{Model: srv.ModelName(), Messages: msgs, Seed: ollamaSeed, NumPredict: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r.Server
	}
	first := prefill("")
	var repeat, bust []time.Duration
	salt := rand.Uint64()
	// The repeats first, while the slot holds the prompt; then the same
	// prompt behind a new marker each time (one between repeats would put
	// another prompt in the slot).
	for k := range 7 {
		r := prefill("")
		if r.PromptN != first.PromptN {
			t.Errorf("repeat %d: prompt_eval_count %d, first %d: the server counts the whole prompt either way", k, r.PromptN, first.PromptN)
		}
		repeat = append(repeat, r.PromptEval)
	}
	for k := range 7 {
		b := prefill(load.Marker(salt, uint64(k+1)))
		if b.PromptN <= first.PromptN {
			t.Errorf("behind a marker: prompt_eval_count %d, without %d: the marker did not reach the prompt", b.PromptN, first.PromptN)
		}
		bust = append(bust, b.PromptEval)
	}
	// The fastest of each: other jobs on the machine only add time.
	rep, bst := slices.Min(repeat), slices.Min(bust)
	t.Logf("%d-token prompt: first prefill %v; repeated %v (fastest %v); behind a new marker %v (fastest %v)", first.PromptN, first.PromptEval, repeat, rep, bust, bst)
	if !(rep < bst/2) {
		t.Errorf("repeated prompts prefilled in %v (fastest), behind a marker in %v: want the repeat at most half — the cache the marker defeats did not show", rep, bst)
	}

	// Accuracy with and without the marker, on the same cases.
	acc := map[sample.CachePolicy]float64{}
	for _, p := range []sample.CachePolicy{sample.CacheNatural, sample.CacheBust} {
		cfg := ollamaConfig(t, srv)
		c := cfg.Scenarios["chat"]
		c.Samples, c.Concurrency, c.Cache = 6, []int{1}, p
		cfg.Scenarios["chat"] = c
		sess, err := session.New(cfg, session.Run{}, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := harness.RunOn(t, sess, deterministic(chat))[0]
		sess.Close()
		acc[p] = v.Stats.Quality.AccuracyRate()
		if v.Stats.Cache.Policy != p {
			t.Errorf("the run says cache %s, want %s", v.Stats.Cache.Policy, p)
		}
	}
	t.Logf("chat accuracy on the tiny random model: natural %.2f, bust %.2f", acc[sample.CacheNatural], acc[sample.CacheBust])
	if acc[sample.CacheNatural] != acc[sample.CacheBust] {
		t.Errorf("accuracy natural %.2f, bust %.2f: the marker changed what the cases ask", acc[sample.CacheNatural], acc[sample.CacheBust])
	}
}
