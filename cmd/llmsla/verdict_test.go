package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/verdict"
)

// TestVerdictMergesShards: two shards' sample files give one verdict over
// their pooled samples, errors counted by kind.
func TestVerdictMergesShards(t *testing.T) {
	simEnv(t, "")
	dir := t.TempDir()
	var paths []string
	for shard := 0; shard < 2; shard++ {
		var b bytes.Buffer
		for i := 0; i < 10; i++ {
			s := sample.Sample{Scenario: "chat", Endpoint: "sim", Level: "concurrency=1", Run: "r" + string(rune('a'+shard)), Seq: i,
				Start: time.Now(), TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond, Total: 30 * time.Millisecond,
				OutputTokens: 3, Finish: "stop"}
			if shard == 1 && i == 0 {
				s.ErrKind, s.Finish, s.Err = sample.KindRateLimited, "rate_limited", "rate_limited (HTTP 429)"
			}
			line, _ := json.Marshal(s)
			b.Write(append(line, '\n'))
		}
		p := filepath.Join(dir, "shard"+string(rune('0'+shard))+".samples.jsonl")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var out, errOut bytes.Buffer
	code := runVerdict(paths, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (5%% errors > 1%%):\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{" 20 ", "errors (chat endpoint=sim concurrency=1): rate_limited=1 of 20", "error rate 5% > 1% (n=20; rate_limited=1)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestVerdictWarnsOfUnreachedConcurrency: a level of concurrency 8 whose
// run measured 3 requests is not shown as if 8 had run.
func TestVerdictWarnsOfUnreachedConcurrency(t *testing.T) {
	simEnv(t, "")
	var b bytes.Buffer
	start := time.Now()
	for i := 0; i < 3; i++ {
		s := sample.Sample{Scenario: "chat", Endpoint: "sim", Level: "concurrency=8", Run: "r", Seq: i, Start: start,
			TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond, Total: 30 * time.Millisecond, OutputTokens: 3, Finish: "stop"}
		line, _ := json.Marshal(s)
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), "s.samples.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	runVerdict([]string{p}, &out, &errOut)
	want := "WARNING (chat endpoint=sim concurrency=8): concurrency=8 with runs of 3 measured requests: at most 3 were in flight at once"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s%s", want, out.String(), errOut.String())
	}
}

// TestVerdictRefusesWhatItCannotJudge: a file cut short is refused (unless
// -partial, which says so), and so is an SLA file naming a scenario the
// files do not hold and no preset has: a misspelling would judge nothing.
func TestVerdictRefusesWhatItCannotJudge(t *testing.T) {
	simEnv(t, "")
	var b bytes.Buffer
	for i := 0; i < 3; i++ {
		s := sample.Sample{Scenario: "chat", Endpoint: "sim", Level: "concurrency=1", Run: "r", Seq: i, Start: time.Now(),
			TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond, Total: 30 * time.Millisecond, OutputTokens: 3, Finish: "stop"}
		line, _ := json.Marshal(s)
		b.Write(append(line, '\n'))
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.samples.jsonl")
	cut := filepath.Join(dir, "cut.samples.jsonl")
	if err := os.WriteFile(whole, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, b.Bytes()[:b.Len()-20], 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runVerdict([]string{cut}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "cut short") {
		t.Errorf("a cut file: exit %d, stderr %q; want 2 saying it was cut short", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := runVerdict([]string{"-partial", cut}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "judged on the requests that finished") {
		t.Errorf("-partial: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	slaFile(t, "scenarios:\n  chta: {samples: 5}\n")
	out.Reset()
	errOut.Reset()
	if code := runVerdict([]string{whole}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "scenarios.chta: no such scenario") {
		t.Errorf("misspelt scenario: exit %d, stderr %q; want 2 naming scenarios.chta", code, errOut.String())
	}
}

// TestBenchLeaderboardOfCutRun: after an interrupted run bench judges what
// finished (a cut samples file); the leaderboard is of those same samples,
// not a second read that refuses the cut file and leaves it out unsaid.
func TestBenchLeaderboardOfCutRun(t *testing.T) {
	simEnv(t, "")
	var b bytes.Buffer
	for i := 0; i < 8; i++ {
		s := sample.Sample{Scenario: "chat", Endpoint: []string{"a", "b"}[i%2], Level: "concurrency=1", Run: "r", Seq: i, Start: time.Now(),
			TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond, Total: 30 * time.Millisecond, OutputTokens: 3, Finish: "stop"}
		line, _ := json.Marshal(s)
		b.Write(append(line, '\n'))
	}
	cut := filepath.Join(t.TempDir(), "cut.samples.jsonl")
	if err := os.WriteFile(cut, b.Bytes()[:b.Len()-20], 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadWithoutKeys()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := judgeRun(cfg, cut, &out, &errOut, verdictOptions{Options: verdict.Options{Partial: true}})
	if code != 0 || !strings.Contains(out.String(), "judged on the requests that finished") {
		t.Errorf("exit %d, want 0 with a warning of the cut\n%s%s", code, &out, &errOut)
	}
	if !strings.Contains(out.String(), "Model selection: 2 endpoints") {
		t.Errorf("no leaderboard of the two endpoints:\n%s%s", &out, &errOut)
	}
}
