package session

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
)

// randomSLA writes an SLA file of random levels for two simulated
// endpoints: closed and open loops, ramps of a known count, synthetic
// prompt lengths, conversations, warm-ups, cache policies, shards.
func randomSLA(r *rand.Rand) (yaml string, scenario Scenario, count, n int, run Run) {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var levels []string
	switch scenario = shippedScenario(pick("chat", "conversation", "tools")); scenario.Name {
	case "conversation":
		levels = append(levels, pick("sessions: [1]", "sessions: [2]", "sessions: [1, 3]", "session_rate: [40]"))
	default:
		for _, lv := range []string{
			pick("concurrency: [1]", "concurrency: [2]", "concurrency: [1, 3]", "concurrency: [4]", ""),
			pick("rate: [400]", "rate: [300, 600]", ""),
			pick(`ramp: {from: 100, to: 400, over: 100ms}`, ""),
			pick("prompt_tokens: [16, 64]", ""),
		} {
			if lv != "" {
				levels = append(levels, lv)
			}
		}
		if len(levels) == 0 || (len(levels) == 1 && strings.HasPrefix(levels[0], "prompt_tokens")) {
			levels = append(levels, "concurrency: [2]")
		}
	}
	cache := pick("bust", "natural", "warm")
	if strings.Contains(strings.Join(levels, " "), "prompt_tokens") && cache == "warm" {
		cache = "bust" // a warm prefix before synthetic prompts is refused
	}
	settings := append(levels,
		fmt.Sprintf("warmup: %d", r.IntN(3)),
		"cache: "+cache,
		fmt.Sprintf("max_tokens: %d", 4+r.IntN(4)))
	yaml = fmt.Sprintf(`endpoints:
  a: {sim: "ttft=300us,tpot=50us,jitter=0,tokens=4"}
  b: {sim: "ttft=200us,tpot=50us,jitter=0,tokens=4"}
scenarios:
  %s:
    %s
`, scenario.Name, strings.Join(settings, "\n    "))
	count, n = 1+r.IntN(2), 2+r.IntN(5)
	if scenario.Name == "conversation" {
		n = 4 + r.IntN(14) // a few conversations' turns; fewer than the sessions is refused alike
	}
	run.PerRun = n // as llmsla bench tells its child
	if r.IntN(4) == 0 && scenario.Name != "conversation" {
		run.Shard.I, run.Shard.N = 0, 1 // alone, through the shard's code
	}
	return yaml, scenario, count, n, run
}

// withoutThink writes the shipped conversations without their think times
// into dir: what a plan counts does not depend on them, and their 75 ms a
// turn were most of TestPlanIsWhatIsSent's four minutes.
func withoutThink(t *testing.T, dir string) string {
	t.Helper()
	src, err := FromRoot("fixtures/conversations.jsonl")
	require.NoError(t, err)
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var row map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &row))
		delete(row, "think")
		b, err := json.Marshal(row)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	path := filepath.Join(dir, "conversations.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644))
	return path
}

// shippedScenario is a suite scenario's definition, as the suites give it.
func shippedScenario(name string) Scenario {
	fixture := map[string]string{"chat": "fixtures/classify.jsonl", "conversation": "fixtures/conversations.jsonl", "tools": "fixtures/tools.jsonl"}[name]
	return Scenario{Name: name, Fixture: fixture, System: "Answer."}
}

// TestPlanIsWhatIsSent: over generated SLA files, the plan's count of
// every request (measured, probes, cold, warm-up) is what the simulators
// received when the levels are sent as go test's benchmarks send them —
// each level, each -count repetition, a probe of one request and then a
// measured run — so that -dry-run, the budget and the progress line count
// what the run sends, by the code that sends it.
func TestPlanIsWhatIsSent(t *testing.T) {
	configs := 240 // ≥ 200 compared, beside those the plan and the run refuse alike
	if testing.Short() {
		configs = 40
	}
	r := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	thinkless := withoutThink(t, dir)
	refused := 0
	defer func() { t.Logf("%d of %d configurations refused alike by the plan and the run", refused, configs) }()
	for i := range configs {
		yaml, sc, count, n, run := randomSLA(r)
		if sc.Name == "conversation" {
			sc.Fixture = thinkless
		}
		path := filepath.Join(dir, fmt.Sprintf("sla%d.yaml", i))
		require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
		cfg, err := config.LoadFile(path)
		require.NoError(t, err, yaml)
		s, err := New(cfg, run, Options{})
		require.NoError(t, err)
		fix, err := s.Source(sc)
		require.NoError(t, err, yaml)
		p, planErr := s.Plan([]Scenario{sc}, map[string]*load.Fixture{sc.Name: fix}, count, n)
		ctx := context.Background()
		var sendErr error
	send:
		for _, ep := range cfg.Endpoints {
			conf := cfg.Scenario(sc.Name, ep.Name)
			for _, lv := range conf.Levels() {
				c := Cell{Scenario: sc.Name, Endpoint: ep, Settings: conf, Level: lv, Fixture: fix}
				for range count {
					if _, sendErr = s.Probe(ctx, c); sendErr != nil {
						break send
					}
					m := n
					if conf.Span(lv) > 0 {
						m = conf.Requests(lv)
					}
					if _, sendErr = s.Measure(ctx, c, m); sendErr != nil {
						break send
					}
				}
			}
		}
		if planErr != nil || sendErr != nil {
			// What the plan refuses, the run refuses, with the same words.
			require.Error(t, planErr, "the run refused what the plan did not:\n%s", yaml)
			require.Error(t, sendErr, "the plan refused what the run did not:\n%s", yaml)
			require.Equal(t, planErr.Error(), sendErr.Error(), yaml)
			refused++
			s.Close()
			continue
		}
		received := 0
		for _, ep := range cfg.Endpoints {
			received += len(s.Sim(ep.Name).Truth())
		}
		tot := p.Totals()
		if tot.UpTo {
			require.LessOrEqual(t, received, tot.Requests(), "an agent loop's count is an upper bound\n%s", yaml)
		} else {
			require.Equal(t, tot.Requests(), received, "plan (%d measured + %d other) vs what the simulators received, -count %d -n %d:\n%s",
				tot.Measured, tot.Other, count, n, yaml)
		}
		s.Close()
	}
}

// TestWarmupBounded: a level's connection warm-up opens the connections
// its measured requests use at once and no more — concurrency 100000 over
// runs of 2 requests warms 2, not 100,000 (which failed 72,439 of them
// with "too many open files") — and the plan says what is sent.
func TestWarmupBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sla.yaml")
	require.NoError(t, os.WriteFile(path, []byte("endpoints:\n  a: {sim: \"ttft=200us,tpot=50us,jitter=0,tokens=4\"}\nscenarios:\n  chat:\n    concurrency: [100000]\n"), 0o644))
	cfg, err := config.LoadFile(path)
	require.NoError(t, err)
	s, err := New(cfg, Run{PerRun: 2}, Options{})
	require.NoError(t, err)
	defer s.Close()
	sc := shippedScenario("chat")
	fix, err := s.Source(sc)
	require.NoError(t, err)
	p, err := s.Plan([]Scenario{sc}, map[string]*load.Fixture{"chat": fix}, 1, 2)
	require.NoError(t, err)
	tot := p.Totals()
	// 2 measured; the cold request, 2 connections, the probe.
	require.Equal(t, 2, tot.Measured)
	require.Equal(t, 4, tot.Other)
	ep := cfg.Endpoints[0]
	c := Cell{Scenario: "chat", Endpoint: ep, Settings: cfg.Scenario("chat", ep.Name), Level: cfg.Scenario("chat", ep.Name).Levels()[0], Fixture: fix}
	_, err = s.Probe(context.Background(), c)
	require.NoError(t, err)
	samples, err := s.Measure(context.Background(), c, 2)
	require.NoError(t, err)
	require.Len(t, samples, 2)
	require.Len(t, s.Sim("a").Truth(), tot.Requests())
}

// TestConversationLevelsHoldTheirSessions: a level of 4 conversations in
// flight over runs of 4 requests would play one conversation, labelled 4:
// the plan refuses it before anything is sent, naming the requests a run
// needs (and the run refuses it alike: TestPlanIsWhatIsSent).
func TestConversationLevelsHoldTheirSessions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sla.yaml")
	require.NoError(t, os.WriteFile(path, []byte("endpoints:\n  a: {sim: \"ttft=200us,tpot=50us,jitter=0,tokens=4\"}\nscenarios:\n  conversation:\n    sessions: [4]\n"), 0o644))
	cfg, err := config.LoadFile(path)
	require.NoError(t, err)
	s, err := New(cfg, Run{PerRun: 4}, Options{})
	require.NoError(t, err)
	defer s.Close()
	sc := shippedScenario("conversation")
	fix, err := s.Source(sc)
	require.NoError(t, err)
	_, err = s.Plan([]Scenario{sc}, map[string]*load.Fixture{sc.Name: fix}, 1, 4)
	require.ErrorContains(t, err, "scenarios.conversation (sessions=4): runs of 4 measured requests play 1 of the fixture's conversations, fewer than the 4 the level keeps in flight")
	require.ErrorContains(t, err, "give each run at least")
	_, err = s.Plan([]Scenario{sc}, map[string]*load.Fixture{sc.Name: fix}, 1, 40)
	require.NoError(t, err, "40 requests hold 4 conversations")
}

// TestLongTraceRowsNamed: trace rows asking more prompt tokens than the
// endpoint's model holds (its server's context length, from provenance)
// are named and counted before the run, per level.
func TestLongTraceRowsNamed(t *testing.T) {
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "prod.jsonl")
	require.NoError(t, os.WriteFile(tracePath, []byte(`{"timestamp": 0, "input_length": 6700, "output_length": 4}
{"timestamp": 10, "input_length": 100, "output_length": 4}
{"timestamp": 20, "input_length": 27000, "output_length": 4}
`), 0o644))
	path := filepath.Join(dir, "sla.yaml")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf("endpoints:\n  a: {sim: \"ttft=200us,tpot=50us,jitter=0,tokens=4\"}\nscenarios:\n  chat:\n    trace: {file: %q, format: jsonl}\n", tracePath)), 0o644))
	cfg, err := config.LoadFile(path)
	require.NoError(t, err)
	s, err := New(cfg, Run{}, Options{})
	require.NoError(t, err)
	defer s.Close()
	sc := shippedScenario("chat")
	fix, err := s.Source(sc)
	require.NoError(t, err)
	p, err := s.Plan([]Scenario{sc}, map[string]*load.Fixture{"chat": fix}, 1, 2)
	require.NoError(t, err)
	notes := longRows(p, map[string]string{"endpoint.a.model.context_length": "4096"})
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "chat endpoint=a trace=prod/speedup=1: 2 of the trace's 3 rows ask more prompt tokens than the model's context of 4096")
	require.Empty(t, longRows(p, map[string]string{}), "no context length known: nothing said")
}

// TestStartAtBounds: a -start-at more than a day ahead would hold a CI job
// that long, and more than a day behind would record every request as
// that late (a sample the reader refuses); both are refused naming what
// was given. Within a day, either way, is taken.
func TestStartAtBounds(t *testing.T) {
	at := func(d time.Duration) Given {
		return Given{Value: time.Now().Add(d).UTC().Format(time.RFC3339), From: "-start-at"}
	}
	_, err := ParseRun(RunSpec{StartAt: at(-400 * 24 * time.Hour)})
	require.ErrorContains(t, err, "-start-at:")
	require.ErrorContains(t, err, "ago: every request would be recorded that late")
	_, err = ParseRun(RunSpec{StartAt: at(48 * time.Hour)})
	require.ErrorContains(t, err, "from now: the shards would wait that long")
	r, err := ParseRun(RunSpec{StartAt: at(-time.Hour)})
	require.NoError(t, err)
	require.False(t, r.StartAt.IsZero())
}
