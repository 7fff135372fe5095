package suites

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/ollama/ollamatest"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestOllamaJudge runs the real judge plumbing on a real model: the
// simulator answers the summary cases and the tiny Ollama model judges
// them, under the summary rubric, with structured output. Its opinions are
// noise (at seed 42, five verdicts of six, one contradicting itself);
// what is tested is that every verdict it could not give (not JSON, off
// the schema, contradictory, cut) fails its answer closed, with the
// reason, and is counted in the judge's account; that a verdict it gave
// is cached and reused (a second session on the same cache asks the model
// only what failed); and, with a budget too small for any verdict, that
// every answer fails, cut.
func TestOllamaJudge(t *testing.T) {
	srv := ollamatest.Shared(t)
	cache := filepath.Join(t.TempDir(), "judge-cache.jsonl")
	run := func(t *testing.T, maxTokens int) ([]sample.Sample, judge.Report) {
		t.Helper()
		cfg := &config.Config{Source: "suites/ollama_judge_test.go",
			Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true, Timeouts: stream.DefaultTimeouts}},
			Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": "ttft=1ms,tpot=0s,jitter=0,wrong=0.5,seed=3"},
			Judge: &config.Judge{Settings: judge.Settings{Endpoint: stream.Endpoint{Name: "ollama", BaseURL: srv.BaseURL(), Model: srv.ModelName(), Kind: "ollama", Timeouts: stream.DefaultTimeouts},
				Cache: cache, Concurrency: 1, MaxTokens: maxTokens, Seed: ollamaSeed}}}
		s, err := session.New(cfg, session.Run{}, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		src, err := s.Source(summary)
		if err != nil {
			t.Fatal(err)
		}
		conf := cfg.Scenario("summary", "sim")
		conf.Warmup = 0
		out, err := s.Measure(context.Background(), session.Cell{Scenario: "summary", Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(1)}, Fixture: src}, 6)
		if err != nil {
			t.Fatal(err)
		}
		rep, ok := s.Concerns().Judge.Report()
		if !ok {
			t.Fatal("no judge report")
		}
		t.Log(rep)
		var measured []sample.Sample
		for _, smp := range out {
			if smp.Measured() {
				measured = append(measured, smp)
			}
		}
		return measured, rep
	}
	checkClosed := func(t *testing.T, samples []sample.Sample, rep judge.Report) (failed int) {
		t.Helper()
		for _, smp := range samples {
			q := smp.Quality
			if q == nil || !q.JudgeChecked {
				t.Fatalf("case %s was not judged", smp.Case)
			}
			if q.JudgeError == "" {
				continue
			}
			failed++
			t.Logf("case %s: %s", smp.Case, q.JudgeError)
			if q.JudgePass || q.JudgeScore != nil || q.Pass() || !strings.Contains(q.Detail, "judge: no verdict: ") {
				t.Errorf("case %s: a judgment that failed (%s) passed: %+v", smp.Case, q.JudgeError, q)
			}
			if kind := judge.FailureKind(errorOf(q.JudgeError)); kind == "other" {
				t.Errorf("case %s: a failure of no known kind: %s", smp.Case, q.JudgeError)
			}
		}
		if rep.Account.Requests != rep.Account.Verdicts+rep.Account.FailedTotal() {
			t.Errorf("account: %d requests, %d verdicts and %d failed do not add up", rep.Account.Requests, rep.Account.Verdicts, rep.Account.FailedTotal())
		}
		return failed
	}
	first, rep := run(t, 96)
	failed := checkClosed(t, first, rep)
	t.Logf("the tiny model: %d of %d judgments failed, %d requests", failed, len(first), rep.Account.Requests)
	if rep.Account.Verdicts == 0 {
		t.Fatalf("the tiny model gave no verdict at all (%s): nothing to cache; the verdict's schema (an integer score, a reason of at most %d characters) should make Ollama's grammar close one", rep, rubric.MaxReason)
	}
	again, rep2 := run(t, 96)
	checkClosed(t, again, rep2)
	if rep2.Account.Requests != rep.Account.FailedTotal() {
		t.Errorf("the second run sent %d judge requests, want %d (only the judgments that failed: %d verdicts were cached)",
			rep2.Account.Requests, rep.Account.FailedTotal(), rep.Account.Verdicts)
	}
	for i := range first {
		if a, b := first[i].Quality, again[i].Quality; a.JudgeError == "" && (b.JudgeError != "" || a.JudgePass != b.JudgePass || *a.JudgeScore != *b.JudgeScore) {
			t.Errorf("case %s: a cached verdict came back changed: %+v, then %+v", first[i].Case, a, b)
		}
	}
	t.Run("a budget too small for a verdict", func(t *testing.T) {
		cut, rep := run(t, 16)
		if n := checkClosed(t, cut, rep); n != len(cut) {
			t.Errorf("%d of %d answers failed with a 16-token verdict budget, want all", n, len(cut))
		}
	})
}

// errorOf wraps a judgment's error text back into the failure it names,
// for judge.FailureKind.
func errorOf(text string) error {
	for _, f := range judge.Failures {
		if strings.HasPrefix(text, f.Error()) {
			return f
		}
	}
	return nil
}
