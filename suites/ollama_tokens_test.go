package suites

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/ollama/ollamatest"
	"github.com/llmsla/llmsla/harness/session"
)

// TestOllamaPromptsInItsTokens: synthetic prompts asked at 64, 128 and
// 512 tokens, and a trace's rows of 60 to 400, are in the real tokenizer
// of the test model (Llama 2's) within 5% of what was asked — the session
// counted how the endpoint counts llmsla's words (two requests of one
// token) and sized the prompts in its tokens; a word a token was 9% off at
// 64 (the chat template's tokens on top), and a trace's rows more.
func TestOllamaPromptsInItsTokens(t *testing.T) {
	srv := ollamatest.Shared(t)
	cfg := ollamaConfig(t, srv)
	sc := cfg.Scenarios["chat"]
	sc.PromptTokens, sc.Concurrency = []int{64, 128, 512}, []int{1}
	sc.Samples, sc.Warmup, sc.MaxTokens = 3, 0, 1
	cfg.Scenarios = map[string]config.Scenario{"chat": sc}
	s, err := session.New(cfg, session.Run{}, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fix, err := s.Source(chat)
	if err != nil {
		t.Fatal(err)
	}
	conf := cfg.Scenario("chat", "ollama")
	for _, lv := range conf.Levels() {
		c := session.Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: lv, Fixture: fix}
		samples, err := s.Measure(context.Background(), c, conf.Samples)
		if err != nil {
			t.Fatal(err)
		}
		for _, smp := range samples {
			if !smp.Measured() {
				continue
			}
			off := math.Abs(float64(smp.PromptTokens-lv.PromptTokens)) / float64(lv.PromptTokens)
			t.Logf("asked %d tokens, the server counted %d (%.1f%% off)", lv.PromptTokens, smp.PromptTokens, 100*off)
			if off > 0.05 {
				t.Errorf("asked %d tokens, the server counted %d: %.1f%% off, want within 5%%", lv.PromptTokens, smp.PromptTokens, 100*off)
			}
		}
	}

	// A trace's rows, replayed as production sent them.
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "prod.jsonl")
	var rows strings.Builder
	for i, in := range []int{60, 150, 400, 90, 250, 120} {
		fmt.Fprintf(&rows, "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": 1}\n", i*200, in)
	}
	if err := os.WriteFile(tracePath, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	slaPath := filepath.Join(dir, "sla.yaml")
	yaml := fmt.Sprintf("endpoints:\n  ollama: {base_url: %q, model: %q, kind: ollama}\nscenarios:\n  chat:\n    warmup: 0\n    trace: {file: %q, format: jsonl}\n", srv.BaseURL(), srv.ModelName(), tracePath)
	if err := os.WriteFile(slaPath, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	tcfg, err := config.LoadFile(slaPath)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := session.New(tcfg, session.Run{}, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	tfix, err := ts.Source(chat)
	if err != nil {
		t.Fatal(err)
	}
	tconf := tcfg.Scenario("chat", "ollama")
	lv := tconf.Levels()[0]
	c := session.Cell{Scenario: "chat", Endpoint: tcfg.Endpoints[0], Settings: tconf, Level: lv, Fixture: tfix}
	samples, err := ts.Measure(context.Background(), c, tconf.Requests(lv))
	if err != nil {
		t.Fatal(err)
	}
	rowsSeen := 0
	for _, smp := range samples {
		if !smp.Measured() || smp.Asked == nil {
			continue
		}
		rowsSeen++
		off := math.Abs(float64(smp.PromptTokens-smp.Asked.PromptTokens)) / float64(smp.Asked.PromptTokens)
		t.Logf("trace row asked %d tokens, the server counted %d (%.1f%% off)", smp.Asked.PromptTokens, smp.PromptTokens, 100*off)
		if off > 0.05 {
			t.Errorf("trace row asked %d tokens, the server counted %d: %.1f%% off, want within 5%%", smp.Asked.PromptTokens, smp.PromptTokens, 100*off)
		}
	}
	if rowsSeen == 0 {
		t.Error("no trace row was measured")
	}
}
