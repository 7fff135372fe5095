package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// words is n distinct words starting with the word tag, so that prompts
// built from different tags differ from their first block on.
func words(tag string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("%s%d", tag, i)
	}
	return strings.Join(w, " ")
}

// chatBody is a streamed request with these messages, each given as
// role, content.
func chatBody(msgs ...string) string {
	var m []map[string]string
	for i := 0; i+1 < len(msgs); i += 2 {
		m = append(m, map[string]string{"role": msgs[i], "content": msgs[i+1]})
	}
	return `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":` + string(mustJSON(m)) + `}`
}

// usageOf sends body and returns the usage it streamed back, raw.
func usageOf(t *testing.T, url, body string) map[string]any {
	t.Helper()
	resp, err := post(t, http.DefaultClient, url, body, "")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := readSSE(t, resp.Body, "\n")
	resp.Body.Close()
	for _, ev := range evs {
		var c struct{ Usage map[string]any }
		if json.Unmarshal([]byte(ev.data), &c) == nil && c.Usage != nil {
			return c.Usage
		}
	}
	t.Fatal("no usage")
	return nil
}

// cachedOf is usage.prompt_tokens_details.cached_tokens, -1 if absent.
func cachedOf(u map[string]any) int {
	d, ok := u["prompt_tokens_details"].(map[string]any)
	if !ok {
		return -1
	}
	return int(d["cached_tokens"].(float64))
}

// TestPrefixCache sends prompts in order through one cache and checks
// each request's cached tokens on the wire and in the truth, and that
// only its uncached tokens were charged prefill.
func TestPrefixCache(t *testing.T) {
	sys := words("sys", 40) // 2.5 blocks of system prompt
	type req struct {
		body   string
		cached int
	}
	cases := map[string]struct {
		blocks int
		reqs   []req
	}{
		"repeat hits all but the last token": {blocks: 64, reqs: []req{
			{chatBody("system", sys, "user", words("q", 8)), 0},  // 48 tokens, 3 blocks
			{chatBody("system", sys, "user", words("q", 8)), 32}, // all 3 found, the last token recomputed
			{chatBody("system", sys, "user", words("q", 9)), 48}, // 49 tokens: all 3 blocks
		}},
		"shared prefix, then not": {blocks: 64, reqs: []req{
			{chatBody("system", sys, "user", words("a", 30)), 0},
			{chatBody("system", sys, "user", words("b", 30)), 32}, // the system prompt's 2 full blocks
		}},
		"unique first block": {blocks: 64, reqs: []req{
			{chatBody("system", sys, "user", words("q", 8)), 0},
			{chatBody("system", "nonce "+sys, "user", words("q", 8)), 0},
		}},
		"a block is found only after its own prefix": {blocks: 64, reqs: []req{
			{chatBody("user", words("x", 16)+" "+words("y", 16)+" z"), 0},
			{chatBody("user", words("y", 16)+" "+words("y", 16)+" z"), 0},
		}},
		"role is part of the token": {blocks: 64, reqs: []req{
			{chatBody("system", sys), 0},
			{chatBody("user", sys), 0},
		}},
		"LRU evicts the tails of old prompts first": {blocks: 4, reqs: []req{
			{chatBody("user", words("a", 49)), 0}, // a0 a1 a2, a0 most recent
			{chatBody("user", words("b", 49)), 0}, // evicts a2 then a1: b0 b1 b2 a0
			{chatBody("user", words("a", 49)), 16},
		}},
		"a conversation's next turn": {blocks: 64, reqs: []req{
			{chatBody("system", sys, "user", words("t", 10)), 0},
			{chatBody("system", sys, "user", words("t", 10), "assistant", words("r", 20), "user", words("u", 5)), 48},
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := fast()
			cfg.CacheBlocks, cfg.PrefillPerToken, cfg.TTFTJitter = tc.blocks, 100*time.Microsecond, 0
			srv, url := Start(t, cfg)
			for i, r := range tc.reqs {
				got := cachedOf(usageOf(t, url, r.body))
				tr := srv.Truth()[i]
				if got != r.cached || tr.CachedTokens != r.cached || !tr.Cache || tr.PrefillTokens != tr.PromptTokens-r.cached {
					t.Errorf("request %d: usage cached %d, truth %d of %d (prefill %d); want %d", i, got, tr.CachedTokens, tr.PromptTokens, tr.PrefillTokens, r.cached)
				}
				if want := cfg.TTFT + time.Duration(tr.PrefillTokens)*cfg.PrefillPerToken; tr.TTFTDelay != want {
					t.Errorf("request %d: ttft delay %v, want %v: prefill for the uncached tokens only", i, tr.TTFTDelay, want)
				}
			}
			if n := srv.prefixCache().blocks(); n > tc.blocks {
				t.Errorf("%d blocks cached, limit %d", n, tc.blocks)
			}
		})
	}
}

// TestPrefixCacheOff: no cache, no prompt_tokens_details, full prefill.
func TestPrefixCacheOff(t *testing.T) {
	cfg := fast()
	cfg.PrefillPerToken, cfg.TTFTJitter = 100*time.Microsecond, 0
	srv, url := Start(t, cfg)
	body := chatBody("user", words("q", 40))
	for range 2 {
		if u := usageOf(t, url, body); cachedOf(u) != -1 {
			t.Errorf("usage %v has prompt_tokens_details with the cache off", u)
		}
	}
	if tr := srv.Truth()[1]; tr.Cache || tr.CachedTokens != 0 || tr.PrefillTokens != 40 || tr.TTFTDelay != cfg.TTFT+40*cfg.PrefillPerToken {
		t.Errorf("truth %+v", tr)
	}
}

// TestPrefixCacheConcurrent hammers a small cache from many requests at
// once (run it with -race): it stays within its limit, and every request
// gets a whole number of blocks short of its whole prompt.
func TestPrefixCacheConcurrent(t *testing.T) {
	cfg := fast()
	cfg.TTFT, cfg.TPOT, cfg.CacheBlocks = 0, 0, 8
	srv, url := Start(t, cfg)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			usageOf(t, url, chatBody("system", words("s", 32), "user", words(fmt.Sprint("u", i%5, "x"), 20+i%3)))
		})
	}
	wg.Wait()
	hits := 0
	for _, tr := range srv.Truth() {
		if tr.CachedTokens%CacheBlock != 0 || tr.CachedTokens > tr.PromptTokens-1 {
			t.Errorf("request %d: %d cached of %d", tr.Index, tr.CachedTokens, tr.PromptTokens)
		}
		hits += btoi(tr.CachedTokens > 0)
	}
	if n := srv.prefixCache().blocks(); n > 8 || hits == 0 {
		t.Errorf("%d blocks cached (limit 8), %d requests hit", n, hits)
	}
}

// TestPrefixCacheLRU checks the list itself: recency, eviction order and
// the bound, block by block.
func TestPrefixCacheLRU(t *testing.T) {
	pc := newPrefixCache(3)
	if hit := pc.admit([]uint64{1, 2, 3}, 3); hit != 0 {
		t.Fatalf("cold cache hit %d", hit)
	}
	if hit := pc.admit([]uint64{1, 2, 3}, 3); hit != 3 {
		t.Fatalf("warm hit %d, want 3", hit)
	}
	if hit := pc.admit([]uint64{1, 2, 3}, 2); hit != 2 {
		t.Fatalf("hit %d, want the usable 2", hit)
	}
	pc.admit([]uint64{4}, 1) // evicts 3, the least recently used
	if hit := pc.admit([]uint64{1, 2, 3}, 3); hit != 2 || pc.blocks() != 3 {
		t.Fatalf("after eviction: hit %d, want 2; %d blocks, want 3", hit, pc.blocks())
	}
	if hit := pc.admit([]uint64{4}, 1); hit != 0 {
		t.Fatalf("4 was evicted by 3, hit %d", hit)
	}
}
