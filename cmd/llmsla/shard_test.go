package main

import (
	"bytes"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/lateness"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
)

// TestShardedRun runs three shard processes of llmsla bench against one
// simulator at a total concurrency of 12 (4 each) and a total rate of 30
// req/s (10 each, constant arrivals: a dozen Poisson arrivals per shard
// would end at very different times), and merges their files: the requests add up, every case
// is asked once, the pooled percentiles are the verdict's, throughput is
// within 10% of one process's at the same total load (widened by the
// lateness the machine showed: each ~108 ms request is late by as much at
// p99, start and end), and leaving a shard out is an error naming it.
// Proven: with -shard ignored (every process sends the whole load) the
// requests add to 108, not 36, and it fails.
func TestShardedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmsla and runs four benches")
	}
	srv := httptest.NewServer(sim.New(sim.Config{TTFT: 100 * time.Millisecond, TPOT: 2 * time.Millisecond, OutputTokens: 4, Seed: 9}))
	defer srv.Close()
	yaml := fmt.Sprintf("endpoints:\n  shared: {base_url: %q, model: sim}\n"+
		"scenarios:\n  chat:\n    concurrency: 12\n    rate: 30\n    arrival: constant\n    warmup: 0\n"+
		"    sla: {accuracy_min: 0}\n", srv.URL+"/v1") // the external simulator knows no fixture answers
	simEnv(t, "")
	useConfig(t, yaml)
	t.Setenv(session.EnvShard, "")
	t.Setenv(session.EnvStartAt, "")
	t.Setenv(session.EnvLevelEvery, "")
	bin := buildLlmsla(t, true)
	run := func(dir string, args ...string) {
		// -allow-busy: three shards and the test share two cores; the
		// bounds below are widened by the lateness they showed.
		cmd := exec.Command(bin, append([]string{"bench", "-allow-busy", "-pkg", suites, "-bench", "Chat", "-count", "1", "-n", "36", "-q", "-out", dir}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("llmsla bench %v: %v\n%s", args, err, out.String())
		}
	}
	probe := lateness.Start()
	// One process first: its time (go test building the suites, then
	// the run) sets how far ahead the shards' common start is, since each
	// shard builds them too and three builds share two cores. 12 s ahead
	// regardless left the shards apart (overlap 0.00, 6 req/s merged) on
	// a machine at load 5, every time.
	single := t.TempDir()
	began := time.Now()
	run(single)
	lead := 12*time.Second + 2*time.Since(began)
	t.Logf("one process took %s: the shards start %s ahead", time.Since(began).Round(time.Millisecond), lead.Round(time.Second))
	start := time.Now().Add(lead).UTC().Format(time.RFC3339)
	shards := t.TempDir() // every shard's results below one directory, as a CI merge job gathers them
	dirs := make([]string, 3)
	var wg sync.WaitGroup
	for i := range dirs {
		dirs[i] = filepath.Join(shards, fmt.Sprint(i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Slots of 2 s: a shard slowed over its first run (a busy
			// machine) would start every later run apart from the others
			// (overlap 0.00 on CI at load 6, TestShardsKeepTogether).
			run(dirs[i], "-shard", fmt.Sprintf("%d/3", i), "-start-at", start, "-level-every", "2s")
		}()
	}
	wg.Wait()
	late := probe.Stop()
	t.Log(late)
	if t.Failed() {
		t.FailNow()
	}
	tol := 0.1 + 2*stats.Ms(late.P99)/108

	merged, _, err := sample.ReadAll(dirs, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := sample.CheckShards(merged); err != nil {
		t.Fatal(err)
	}
	alone, _, err := sample.ReadAll([]string{single}, false)
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(string, string) objective.Objectives { return nil }
	mv, av := objective.Evaluate(merged, lookup), objective.Evaluate(alone, lookup)
	if len(mv) != 2 || len(av) != 2 {
		t.Fatalf("levels: merged %d, single %d, want 2 each", len(mv), len(av))
	}
	for k := range mv {
		m, a := mv[k], av[k]
		if m.Level != a.Level {
			t.Fatalf("level %s merged, %s single", m.Level, a.Level)
		}
		t.Logf("%s: merged n=%d %.1f req/s (overlap %.2f), single n=%d %.1f req/s", m.Level, m.Stats.Attempted,
			m.Stats.ReqPerSec, m.Stats.Overlap, a.Stats.Attempted, a.Stats.ReqPerSec)
		if m.Stats.Attempted != 36 || m.Stats.Failed != 0 {
			t.Errorf("%s: %d requests (%d failed) merged, want 36 = 12 + 12 + 12", m.Level, m.Stats.Attempted, m.Stats.Failed)
		}
		if math.Abs(m.Stats.ReqPerSec/a.Stats.ReqPerSec-1) > tol {
			t.Errorf("%s: merged throughput %.1f req/s vs one process's %.1f: want within %.0f%% (%s)", m.Level, m.Stats.ReqPerSec, a.Stats.ReqPerSec, 100*tol, late)
		}
		var ttft []float64
		for _, s := range merged {
			if s.Level == m.Level && s.Measured() && s.OK() {
				ttft = append(ttft, float64(s.TTFT)/float64(time.Millisecond))
			}
		}
		if d := stats.Describe(ttft); d.P95 != m.Stats.TTFT.P95 || d.P50 != m.Stats.TTFT.P50 {
			t.Errorf("%s: verdict ttft p50/p95 %v/%v, pooled samples %v/%v", m.Level, m.Stats.TTFT.P50, m.Stats.TTFT.P95, d.P50, d.P95)
		}
	}
	asked := map[string]int{}
	for _, s := range merged {
		if s.Measured() && s.Level == "concurrency=12" {
			asked[s.Case]++
		}
	}
	if len(asked) != 36 {
		t.Errorf("%d distinct cases asked at concurrency=12 over the shards, want all 36", len(asked))
	}

	var out, errOut bytes.Buffer
	if code := runVerdict([]string{dirs[0], dirs[2]}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "shard 1/3 missing") {
		t.Errorf("verdict without shard 1: exit %d, stderr %q; want 2 naming shard 1/3", code, errOut.String())
	}

	// The gate reads the shards' directory as one run, judged on requests:
	// the same simulator alone and split passes.
	out.Reset()
	errOut.Reset()
	slaFile(t, "")
	// The simulator's TTFT is constant: 72 requests a side cannot show a
	// change of its percentiles, and the test is about pooling shards.
	if code := runGate([]string{"-allow-blind", "*", filepath.Join(single, "latest.txt"), shards}, &out, &errOut); code != 0 {
		t.Errorf("gate one process vs three shards of the same load: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if err := os.RemoveAll(dirs[1]); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := runGate([]string{filepath.Join(single, "latest.txt"), shards}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "shard 1/3 missing") {
		t.Errorf("gate with shard 1 gone: exit %d, stderr %q; want 2 naming shard 1/3", code, errOut.String())
	}
}

// TestShardsKeepTogether: shards started together drift apart when one
// takes longer over the first run (here a warm-up of 6 requests that the
// other shard does not send, as a slower connect or a busier machine
// would): without slots every later run of the late shard starts 600 ms
// after the other's, and runs of 400 ms do not overlap. With -level-every
// every measured run starts at its slot on both shards, and they overlap:
// within 100 ms, and 75% of a run, each widened by the worst wake the
// lateness probe saw while the slotted shards ran (a starved process
// starts its run late by as much). Proven: with -level-every ignored the
// slotted shards start 600 ms apart and it fails.
func TestShardsKeepTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmsla and runs four benches")
	}
	srv := httptest.NewServer(sim.New(sim.Config{TTFT: 100 * time.Millisecond, TPOT: 2 * time.Millisecond, OutputTokens: 4, Seed: 9}))
	defer srv.Close()
	cfg := func(warmup int) string {
		yaml := fmt.Sprintf("endpoints:\n  shared: {base_url: %q, model: sim}\n"+
			"scenarios:\n  chat:\n    concurrency: 2\n    warmup: %d\n    sla: {accuracy_min: 0}\n", srv.URL+"/v1", warmup)
		return writeConfig(t, yaml)
	}
	configs := []string{cfg(0), cfg(6)}
	simEnv(t, "")
	t.Setenv(session.EnvShard, "")
	t.Setenv(session.EnvStartAt, "")
	t.Setenv(session.EnvLevelEvery, "")
	bin := buildLlmsla(t, true)
	// A dry run's time (go test building the suites) sets how far ahead
	// the shards' common start is: each shard builds them too, two builds
	// sharing two cores (TestShardedRun: 12 s regardless left its shards
	// apart at load 5).
	began := time.Now()
	dry := exec.Command(bin, "bench", "-pkg", suites, "-bench", "Chat", "-dry-run", "-q")
	dry.Env = append(os.Environ(), config.EnvConfig+"="+configs[0])
	if out, err := dry.CombinedOutput(); err != nil {
		t.Fatalf("llmsla bench -dry-run: %v\n%s", err, out)
	}
	lead := 12*time.Second + 2*time.Since(began)
	t.Logf("a dry run took %s: the shards start %s ahead", time.Since(began).Round(time.Millisecond), lead.Round(time.Second))
	sharded := func(slots ...string) []objective.Verdict {
		start := time.Now().Add(lead).UTC().Format(time.RFC3339)
		dirs := make([]string, 2)
		var wg sync.WaitGroup
		for i := range dirs {
			dirs[i] = t.TempDir()
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := append([]string{"bench", "-allow-busy", "-pkg", suites, "-bench", "Chat", "-count", "3", "-n", "8", "-q", "-out", dirs[i],
					"-shard", fmt.Sprintf("%d/2", i), "-start-at", start}, slots...)
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), config.EnvConfig+"="+configs[i])
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("llmsla %v: %v\n%s", args, err, out)
				}
			}()
		}
		wg.Wait()
		merged, _, err := sample.ReadAll(dirs, false)
		if err != nil {
			t.Fatal(err)
		}
		vs := objective.Evaluate(merged, func(string, string) objective.Objectives { return nil })
		if len(vs) != 1 {
			t.Fatalf("%d levels, want 1", len(vs))
		}
		return vs
	}
	apart := sharded()[0].Stats
	probe := lateness.Start()
	together := sharded("-level-every", "2s")[0].Stats
	late := probe.Stop()
	slack := 100*time.Millisecond + late.Max
	t.Log(late)
	t.Logf("without slots: overlap %.2f, started %v apart, %.1f req/s; with: overlap %.2f, %v apart, %.1f req/s, latest start %v late",
		apart.Overlap, apart.StartSpread, apart.ReqPerSec, together.Overlap, together.StartSpread, together.ReqPerSec, together.StartLag)
	if apart.Overlap > 0.3 || apart.StartSpread < 400*time.Millisecond {
		t.Errorf("without slots: overlap %.2f, started %v apart; want the 600 ms warm-up to keep them apart (the test lost its drift)", apart.Overlap, apart.StartSpread)
	}
	if minOverlap := 0.75 - float64(late.Max)/float64(400*time.Millisecond); together.Overlap < minOverlap || together.StartSpread > slack {
		t.Errorf("with -level-every 2s: overlap %.2f, started %v apart; want ≥ %.2f and ≤ %v (%s)", together.Overlap, together.StartSpread, minOverlap, slack, late)
	}
	if together.StartLag > slack {
		t.Errorf("with -level-every 2s: shard %s started a run %v after its slot; the slots of 2 s hold runs of 400 ms", together.LateShard, together.StartLag)
	}
}

// buildLlmsla builds the command into a temporary directory and returns
// its path; warm also builds the suites' test binary into llmsla's
// cache, so that processes started together (shards) start together.
func buildLlmsla(t *testing.T, warm bool) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "llmsla")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if !warm {
		return bin
	}
	if _, err := (session.GoTest{Pkg: suites, Bench: "^$"}).Suites(); err != nil {
		t.Fatal(err)
	}
	return bin
}
