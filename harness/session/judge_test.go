package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// summaryJudged is the summary scenario as the suites define it, judged by
// its shipped rubric.
var summaryJudged = Scenario{Name: "summary", Fixture: "fixtures/summarize.jsonl",
	System: "Summarise the text in at most three sentences.", Rubric: "fixtures/rubrics/summary.yaml"}

// judgeSetup is how a judged test session is made.
type judgeSetup struct {
	spec, judgeSpec string // the measured simulator's, the judge's
	cache           string // the judge's cache file ("": none)
	run             Run
	timeouts        stream.Timeouts // the judge's (zero: the defaults)
}

// judgeSession is a session on one simulated endpoint, judged by a
// simulated judge.
func judgeSession(t *testing.T, js judgeSetup) (*Session, *config.Config) {
	t.Helper()
	to := js.timeouts
	if to == (stream.Timeouts{}) {
		to = stream.DefaultTimeouts
	}
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": js.spec, "grader": js.judgeSpec},
		Judge: &config.Judge{Settings: judge.Settings{Endpoint: stream.Endpoint{Name: "grader", Model: "judge", Simulated: true, Timeouts: to},
			Cache: js.cache, Concurrency: 4, MaxTokens: 256, Seed: 1}}}
	s, err := New(cfg, js.run, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, cfg
}

// measureSummary sends n requests of the judged summary scenario at
// concurrency 4, without warm-up, and returns the measured samples.
func measureSummary(t *testing.T, s *Session, cfg *config.Config, n int) []sample.Sample {
	return measureSummaryAt(t, s, cfg, n, 4)
}

// measureSummaryAt is measureSummary at concurrency c: at 1, the
// simulator's wrong answers fall on the same cases run after run.
func measureSummaryAt(t *testing.T, s *Session, cfg *config.Config, n, c int) []sample.Sample {
	t.Helper()
	src, err := s.Source(summaryJudged)
	require.NoError(t, err)
	conf := cfg.Scenario("summary", "sim")
	conf.Warmup = 0
	out, err := s.Measure(context.Background(), Cell{Scenario: "summary", Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(c)}, Fixture: src}, n)
	require.NoError(t, err)
	return measured(out)
}

// judgments are the judge simulator's records of the judgments it made.
func judgments(srv *sim.Server) []sim.Truth {
	var out []sim.Truth
	for _, tr := range srv.Truth() {
		if tr.Judge != nil {
			out = append(out, tr)
		}
	}
	return out
}

// TestJudgedPassEqualsSimulatorTruth: the simulator answers the summary
// cases wrong 30% of the time, and its judge flips a fifth of its verdicts
// (by a hash of the prompt: the same answer, the same verdict). Each
// answer's judged pass is the judge's recorded decision for that case and
// answer, and judge pass % is their share, exactly.
func TestJudgedPassEqualsSimulatorTruth(t *testing.T) {
	s, cfg := judgeSession(t, judgeSetup{spec: "ttft=1ms,tpot=0s,jitter=0,wrong=0.3,seed=5", judgeSpec: "ttft=1ms,tpot=0s,judge,judge_noise=0.2,seed=3"})
	samples := measureSummary(t, s, cfg, 120)
	truth := map[string]sim.Truth{}
	for _, tr := range s.Sim("sim").Truth() {
		truth[tr.ID] = tr
	}
	// Which case and answer each judgment was about: the judge's own
	// samples name the case; the reference is the right answer, the only
	// one with a key-word F1 of 1.
	byID := map[string]sample.Sample{}
	for _, js := range s.Concerns().Judge.Sent() {
		byID[js.ID] = js
	}
	type judged struct {
		c     string
		right bool
	}
	decided := map[judged]*sim.JudgeTruth{}
	flipped := 0
	for _, tr := range judgments(judgeSim(s)) {
		js, ok := byID[tr.ID]
		require.True(t, ok, "judgment %s was not sent by the session", tr.ID)
		decided[judged{js.Case, tr.Judge.F1 == 1}] = tr.Judge
		if tr.Judge.Flipped {
			flipped++
		}
	}
	passed := 0
	for _, smp := range samples {
		q := smp.Quality
		require.NotNil(t, q)
		require.True(t, q.JudgeChecked, "case %s was not judged", smp.Case)
		d := decided[judged{smp.Case, !truth[smp.ID].Wrong}]
		require.NotNil(t, d, "no judgment of case %s (wrong=%v)", smp.Case, truth[smp.ID].Wrong)
		assert.Equal(t, d.Pass, q.JudgePass, "case %s wrong=%v: judged %v, the judge decided %v", smp.Case, truth[smp.ID].Wrong, q.JudgePass, d.Pass)
		assert.Equal(t, d.Score, *q.JudgeScore)
		if d.Pass {
			passed++
		}
	}
	st := objective.Judge(samples, nil).Stats
	t.Logf("%d answers, %d judgments (%d flipped), judge pass %.3f, judge score %.2f, accuracy %.3f",
		len(samples), len(decided), flipped, st.Quality.JudgePassRate(), st.Quality.JudgeScoreMean(), st.Quality.AccuracyRate())
	assert.Greater(t, flipped, 0, "the noise shows up")
	assert.Less(t, len(decided), 23, "one judgment per case and answer: 11 cases, right or wrong")
	assert.InDelta(t, float64(passed)/float64(len(samples)), st.Quality.JudgePassRate(), 1e-12)
	assert.Equal(t, len(samples), st.Quality.JudgeChecked)
}

// TestJudgeNoiseFreeTellsRightFromWrong: with no noise the simulator's
// judge passes every right summary and fails every wrong one of the
// shipped fixture, so that judged pass % is the share of right answers.
func TestJudgeNoiseFreeTellsRightFromWrong(t *testing.T) {
	s, cfg := judgeSession(t, judgeSetup{spec: "ttft=1ms,tpot=0s,jitter=0,wrong=0.5,seed=2", judgeSpec: "ttft=0s,tpot=0s,judge"})
	samples := measureSummary(t, s, cfg, 88)
	truth := map[string]sim.Truth{}
	for _, tr := range s.Sim("sim").Truth() {
		truth[tr.ID] = tr
	}
	for _, smp := range samples {
		assert.Equal(t, !truth[smp.ID].Wrong, smp.Quality.JudgePass, "case %s wrong=%v: %s", smp.Case, truth[smp.ID].Wrong, smp.Quality.JudgeReason)
	}
}

// TestJudgeFailsClosed: a judge that answers prose, one that times out
// and one that errors each fail every answer they were asked about, with
// the reason, and the verdict fails judge_pass_min (implied at 90%). Only
// the case that times out has a short header timeout: under load 5-11 a
// judge that answered lorem was cut at 200 ms once, and failed as
// "timed out", not as "not JSON".
func TestJudgeFailsClosed(t *testing.T) {
	cases := map[string]struct {
		spec, reason string
	}{
		"prose":    {"ttft=0s,tpot=0s,judge,judge_prose=1", "judge answer not JSON"},
		"broken":   {"ttft=0s,tpot=0s,judge,invalid_json=1", "judge answer not JSON"},
		"timeout":  {"ttft=0s,tpot=0s,judge,fault=timeout_headers:1", "judge request timed out"},
		"error":    {"ttft=0s,tpot=0s,judge,fault=server_error:1", "judge request failed"},
		"no judge": {"ttft=0s,tpot=0s", "judge answer not JSON"}, // a model that is no judge answers lorem
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			to := stream.Timeouts{Headers: 10 * time.Second, Idle: 10 * time.Second, Total: 30 * time.Second}
			if name == "timeout" {
				to = stream.Timeouts{Headers: 200 * time.Millisecond, Idle: time.Second, Total: 5 * time.Second}
			}
			s, cfg := judgeSession(t, judgeSetup{spec: "ttft=1ms,tpot=0s,jitter=0", judgeSpec: tc.spec, timeouts: to})
			samples := measureSummary(t, s, cfg, 22)
			for _, smp := range samples {
				q := smp.Quality
				require.True(t, q.JudgeChecked)
				assert.False(t, q.JudgePass, "case %s passed without a verdict", smp.Case)
				assert.Nil(t, q.JudgeScore)
				assert.Contains(t, q.JudgeError, tc.reason)
				assert.Contains(t, q.Detail, "judge: no verdict: "+tc.reason)
				assert.False(t, q.Pass(), "a case without a verdict is not passed")
			}
			v := objective.Judge(samples, nil)
			require.NotEmpty(t, v.Violations)
			assert.Contains(t, v.Violations[len(v.Violations)-1].String(), "judge pass 0% < 90%")
			assert.Equal(t, 0.0, v.Stats.GoodPct, "no answer without a verdict is good")
			rep, _ := s.Concerns().Judge.Report()
			assert.Equal(t, rep.Account.Requests, rep.Account.FailedTotal(), "every judge request failed: %s", rep)
			assert.Equal(t, 0, rep.Account.Verdicts)
		})
	}
}

// TestJudgeCache: a rerun on the same cache sends the judge no request,
// with the same verdicts; -rejudge sends every judgment again.
func TestJudgeCache(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "judge-cache.jsonl")
	setup := judgeSetup{spec: "ttft=1ms,tpot=0s,jitter=0,wrong=0.3,seed=5", judgeSpec: "ttft=0s,tpot=0s,judge,judge_noise=0.1", cache: cache}
	verdicts := func(ss []sample.Sample) []bool {
		out := make([]bool, len(ss))
		for i, s := range ss {
			out[i] = s.Quality.JudgePass
		}
		return out
	}
	s1, cfg := judgeSession(t, setup)
	first := measureSummaryAt(t, s1, cfg, 44, 1)
	sent := len(judgments(judgeSim(s1)))
	require.Greater(t, sent, 11, "the first run asks the judge")
	rep, _ := s1.Concerns().Judge.Report()
	assert.Equal(t, 0, rep.Cached)
	s1.Close()

	s2, cfg := judgeSession(t, setup)
	again := measureSummaryAt(t, s2, cfg, 44, 1)
	assert.Empty(t, judgments(judgeSim(s2)), "a rerun asks the judge nothing")
	assert.Equal(t, verdicts(first), verdicts(again))
	rep, _ = s2.Concerns().Judge.Report()
	assert.Equal(t, 44, rep.Cached)
	s2.Close()

	setup.run = Run{Rejudge: true}
	s3, cfg := judgeSession(t, setup)
	rejudged := measureSummaryAt(t, s3, cfg, 44, 1)
	assert.Equal(t, sent, len(judgments(judgeSim(s3))), "-rejudge asks every judgment again")
	assert.Equal(t, verdicts(first), verdicts(rejudged))
}

// TestJudgePlanRefuses: a rubric that does not load, and a case judged by
// a rubric alone with no judge to ask, are errors before any request; a
// scenario naming a rubric without a judge says its answers are not
// judged, and is measured without them.
func TestJudgePlanRefuses(t *testing.T) {
	s, _ := simSession(t, "ttft=1ms,tpot=0s")
	_, err := s.Source(Scenario{Name: "summary", Fixture: "fixtures/summarize.jsonl", Rubric: "fixtures/rubrics/nope.yaml"})
	require.ErrorContains(t, err, "nope.yaml")
	require.Empty(t, s.Sim("sim").Truth(), "nothing was sent")

	_, err = s.Source(summaryJudged)
	require.NoError(t, err)
	assert.Contains(t, s.Concerns().Judge.Note("summary"), "no judge endpoint is configured")
	assert.Contains(t, s.Concerns().Judge.Note("summary"), "judge_pass is not measured")

	dir := t.TempDir()
	p := filepath.Join(dir, "judged.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"id": "c1", "prompt": "Hello?", "match": {"type": "judge", "rubric": "fixtures/rubrics/chat.yaml"}, "answer": "Hi.", "wrong_answer": "No."}`+"\n"), 0o644))
	_, err = s.Source(Scenario{Name: "chat", Fixture: p})
	require.ErrorContains(t, err, p+":1: match: the case is judged by a rubric alone, and no judge endpoint is configured")

	off, offCfg := judgeSession(t, judgeSetup{spec: "ttft=1ms,tpot=0s", judgeSpec: "judge"})
	sc := offCfg.Scenarios["summary"]
	sc.QualityOff = true
	offCfg.Scenarios["summary"] = sc
	_, err = off.Source(summaryJudged)
	require.NoError(t, err)
	assert.Contains(t, off.Concerns().Judge.Note("summary"), "quality: off, so no judge is asked")

	js, _ := judgeSession(t, judgeSetup{spec: "ttft=1ms,tpot=0s", judgeSpec: "judge"})
	require.NoError(t, os.WriteFile(p, []byte(`{"id": "c1", "prompt": "Hello?", "match": {"type": "judge"}, "answer": "Hi.", "wrong_answer": "No."}`+"\n"), 0o644))
	_, err = js.Source(Scenario{Name: "chat", Fixture: p})
	require.ErrorContains(t, err, p+":1: match.rubric: the case is judged by a rubric and names none, nor does scenario chat")
}

// TestJudgeOnlyCases: cases judged by a rubric alone (match: judge) pass
// or fail on the judge's verdict: the simulator's judge, with no
// reference shown (the chat rubric), scores against the right answer it
// was told.
func TestJudgeOnlyCases(t *testing.T) {
	p := filepath.Join(t.TempDir(), "judged.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(
		`{"id": "c1", "prompt": "How do I reset my password?", "match": {"type": "judge", "rubric": "fixtures/rubrics/chat.yaml"}, "answer": "Open Settings, choose Security, then Reset password and follow the emailed link.", "wrong_answer": "Passwords cannot be changed."}`+"\n"+
			`{"id": "c2", "prompt": "When does the shop open?", "match": {"type": "judge", "rubric": "fixtures/rubrics/chat.yaml"}, "answer": "The shop opens at nine every weekday morning and ten on weekends.", "wrong_answer": "Maybe."}`+"\n"), 0o644))
	s, cfg := judgeSession(t, judgeSetup{spec: "ttft=1ms,tpot=0s,jitter=0,wrong=0.5,seed=4", judgeSpec: "ttft=0s,tpot=0s,judge"})
	src, err := s.Source(Scenario{Name: "chat", Fixture: p})
	require.NoError(t, err)
	conf := cfg.Scenario("chat", "sim")
	conf.Warmup = 0
	out, err := s.Measure(context.Background(), Cell{Scenario: "chat", Endpoint: cfg.Endpoints[0], Settings: conf, Level: config.Level{Pacer: load.Closed(1)}, Fixture: src}, 20)
	require.NoError(t, err)
	truth := map[string]sim.Truth{}
	for _, tr := range s.Sim("sim").Truth() {
		truth[tr.ID] = tr
	}
	for _, smp := range measured(out) {
		q := smp.Quality
		assert.False(t, q.MatchChecked)
		assert.True(t, q.JudgeChecked)
		assert.Equal(t, !truth[smp.ID].Wrong, q.JudgePass, "case %s: %s", smp.Case, q.JudgeReason)
		assert.Equal(t, q.JudgePass, q.Pass())
	}
}

// judgeSim is the simulator behind the session's simulated judge.
func judgeSim(s *Session) *sim.Server { return s.Sim(s.Config().Judge.Endpoint.Name) }
