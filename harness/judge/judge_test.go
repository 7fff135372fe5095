package judge

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/stream"
)

var (
	five = &rubric.Rubric{Name: "summary", Criteria: []string{"Faithful."}, Scale: rubric.Five, Threshold: 4, Reference: true}
	pf   = &rubric.Rubric{Name: "chat", Criteria: []string{"Answers."}, Scale: rubric.PassFail}
)

// TestParse: only one JSON object valid against the verdict's schema,
// whose pass is what its score says, is a verdict; anything else fails
// with the kind of failure and what the judge answered.
func TestParse(t *testing.T) {
	cases := map[string]struct {
		r       *rubric.Rubric
		content string
		want    error // nil: a verdict
	}{
		"a pass":                 {five, `{"score": 4, "pass": true, "reason": "covers it"}`, nil},
		"a fail":                 {five, `{"score": 2, "pass": false, "reason": "misses it"}`, nil},
		"a fractional score":     {five, `{"score": 4.5, "pass": true, "reason": "x"}`, ErrSchema},
		"pass_fail":              {pf, ` {"score": 1, "pass": true, "reason": "yes"} `, nil},
		"prose":                  {five, `I think it is good.`, ErrNotJSON},
		"a fence":                {five, "```json\n{\"score\": 4, \"pass\": true, \"reason\": \"x\"}\n```", ErrNotJSON},
		"two objects":            {five, `{"score": 4, "pass": true, "reason": "x"} {}`, ErrNotJSON},
		"a score off the scale":  {five, `{"score": 6, "pass": true, "reason": "x"}`, ErrSchema},
		"zero on 1-5":            {five, `{"score": 0, "pass": false, "reason": "x"}`, ErrSchema},
		"no reason":              {five, `{"score": 4, "pass": true}`, ErrSchema},
		"an empty reason":        {five, `{"score": 4, "pass": true, "reason": ""}`, ErrSchema},
		"an extra key":           {five, `{"score": 4, "pass": true, "reason": "x", "confidence": 1}`, ErrSchema},
		"a string score":         {five, `{"score": "4", "pass": true, "reason": "x"}`, ErrSchema},
		"a pass below threshold": {five, `{"score": 3, "pass": true, "reason": "x"}`, ErrContradictory},
		"a fail at threshold":    {five, `{"score": 4, "pass": false, "reason": "x"}`, ErrContradictory},
		"pass_fail 1 failing":    {pf, `{"score": 1, "pass": false, "reason": "x"}`, ErrContradictory},
		"an array":               {five, `[4, true, "x"]`, ErrSchema},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v, err := Parse(tc.r, tc.content)
			if tc.want == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.r.Passes(v.Score), v.Pass)
				assert.NotEmpty(t, v.Reason)
				return
			}
			require.ErrorIs(t, err, tc.want)
			assert.Equal(t, FailureKind(tc.want), FailureKind(err))
		})
	}
}

// fakeJudge answers each request with what answer says, counting requests.
type fakeJudge struct {
	mu     sync.Mutex
	n      int
	last   stream.Request
	answer func(req stream.Request) sample.Sample
}

func (f *fakeJudge) Do(_ context.Context, req stream.Request) sample.Sample {
	f.mu.Lock()
	f.n++
	f.last = req
	f.mu.Unlock()
	s := f.answer(req)
	s.Endpoint, s.Start, s.Total = "grader", time.Now(), time.Millisecond
	return s
}

func (f *fakeJudge) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func answering(content string) func(stream.Request) sample.Sample {
	return func(stream.Request) sample.Sample {
		return sample.Sample{Content: content, Finish: "stop", OutputTokens: 10}
	}
}

func asks(answers ...string) []Ask {
	out := make([]Ask, len(answers))
	for i, a := range answers {
		out[i] = Ask{Rubric: five, Item: rubric.Item{Case: "c" + string(rune('0'+i%10)), Question: "Q", Reference: "R", Answer: a}}
	}
	return out
}

// TestJudgeAsks: one request per distinct judgment, at temperature 0 with
// the seed and the verdict's schema; a verdict cached, a failure not, and
// every kind of failure named.
func TestJudgeAsks(t *testing.T) {
	dir := t.TempDir()
	cache, err := OpenCache(filepath.Join(dir, "cache.jsonl"), nil, false)
	require.NoError(t, err)
	defer cache.Close()
	f := &fakeJudge{answer: answering(`{"score": 5, "pass": true, "reason": "same"}`)}
	j := &Judge{Name: "grader", Identity: Identity{Model: "m", Seed: 7, MaxTokens: 99}, Doer: f, Cache: cache}
	var sent []sample.Sample
	rs := j.Judge(context.Background(), asks("a", "a", "b"), func(s *sample.Sample, _ Ask) { sent = append(sent, *s) })
	assert.Equal(t, 2, f.requests(), "two distinct answers, two requests")
	require.Len(t, sent, 2)
	for _, r := range rs {
		require.NoError(t, r.Err)
		assert.True(t, r.Pass)
		assert.False(t, r.Cached)
	}
	seen := f.last
	require.NotNil(t, seen.Temperature)
	assert.Equal(t, float32(0), *seen.Temperature)
	assert.Equal(t, 7, *seen.Seed)
	assert.Equal(t, 99, seen.MaxTokens)
	require.NotNil(t, seen.ResponseFormat.JSONSchema)
	assert.True(t, sent[0].Quality.JudgeChecked && sent[0].Quality.JudgePass)

	again := j.Judge(context.Background(), asks("a", "b"), nil)
	assert.Equal(t, 2, f.requests(), "both from the cache")
	assert.True(t, again[0].Cached && again[1].Cached)

	failures := map[string]struct {
		answer func(stream.Request) sample.Sample
		want   error
	}{
		"prose":    {answering("Looks fine to me."), ErrNotJSON},
		"timeout":  {func(stream.Request) sample.Sample { return failed(sample.KindTimeoutHeaders) }, ErrTimeout},
		"an error": {func(stream.Request) sample.Sample { return failed(sample.KindServerError) }, ErrRequest},
		"cut short": {func(stream.Request) sample.Sample {
			return sample.Sample{Content: `{"score": 5, "pa`, Finish: "length"}
		}, ErrCut},
		"captured cut": {func(stream.Request) sample.Sample {
			return sample.Sample{Content: `{"score": 5}`, ContentCut: true, Finish: "stop"}
		}, ErrCut},
	}
	for name, tc := range failures {
		t.Run(name, func(t *testing.T) {
			fj := &fakeJudge{answer: tc.answer}
			jj := &Judge{Name: "grader", Identity: Identity{Model: "m2"}, Doer: fj, Cache: cache}
			var sent []sample.Sample
			rs := jj.Judge(context.Background(), asks("x "+name), func(s *sample.Sample, _ Ask) { sent = append(sent, *s) })
			require.ErrorIs(t, rs[0].Err, tc.want)
			assert.False(t, rs[0].Pass)
			require.Len(t, sent, 1)
			assert.True(t, strings.HasPrefix(sent[0].Quality.JudgeError, tc.want.Error()), sent[0].Quality.JudgeError)
			jj.Judge(context.Background(), asks("x "+name), nil)
			assert.Equal(t, 2, fj.requests(), "a failure is not cached: asked again")
			acct := Summarize(sent)
			require.Len(t, acct, 1)
			assert.Equal(t, 1, acct[0].Failed[FailureKind(tc.want)], "%s", acct[0])
		})
	}
	t.Run("too long to show", func(t *testing.T) {
		fj := &fakeJudge{answer: answering(`{"score": 5, "pass": true, "reason": "x"}`)}
		jj := &Judge{Doer: fj}
		rs := jj.Judge(context.Background(), asks(strings.Repeat("a", rubric.MaxAnswer+1)), nil)
		require.ErrorIs(t, rs[0].Err, ErrUnjudgeable)
		assert.Equal(t, 0, fj.requests())
	})
}

func failed(k sample.ErrorKind) sample.Sample {
	var s sample.Sample
	s.Fail(&sample.RequestError{Kind: k, Message: "boom"})
	return s
}

// TestKey: a judgment's key changes with whatever could change the
// verdict, and with nothing else (the reference, where the rubric does
// not show it).
func TestKey(t *testing.T) {
	id := Identity{Model: "m", Digest: "d", Seed: 1, MaxTokens: 256}
	it := rubric.Item{Case: "c", Question: "q", Reference: "r", Answer: "a"}
	base := Key(id, five, it)
	changed := map[string]string{
		"model":      Key(Identity{Model: "m2", Digest: "d", Seed: 1, MaxTokens: 256}, five, it),
		"digest":     Key(Identity{Model: "m", Digest: "e", Seed: 1, MaxTokens: 256}, five, it),
		"seed":       Key(Identity{Model: "m", Digest: "d", Seed: 2, MaxTokens: 256}, five, it),
		"max tokens": Key(Identity{Model: "m", Digest: "d", Seed: 1, MaxTokens: 512}, five, it),
		"rubric":     Key(id, pf, it),
		"question":   Key(id, five, rubric.Item{Question: "q2", Reference: "r", Answer: "a"}),
		"reference":  Key(id, five, rubric.Item{Question: "q", Reference: "r2", Answer: "a"}),
		"answer":     Key(id, five, rubric.Item{Question: "q", Reference: "r", Answer: "a2"}),
	}
	for name, k := range changed {
		assert.NotEqual(t, base, k, name)
	}
	assert.Equal(t, base, Key(id, five, rubric.Item{Case: "other", Question: "q", Reference: "r", Answer: "a"}), "the case id is not asked")
	assert.Equal(t, Key(id, pf, it), Key(id, pf, rubric.Item{Question: "q", Reference: "other", Answer: "a"}), "a reference not shown is not asked")
	assert.Len(t, base, 64)
}

// TestCacheFile: judgments survive a reopen, -rejudge reads none, a
// corrupt line fails the open at its line, and the file is redacted.
func TestCacheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "cache.jsonl")
	key := strings.Repeat("ab", 32)
	const secretValue = "sk-live-0123456789abcdefSECRET"
	sec := secret.New(secretValue)
	c, err := OpenCache(path, sec.RedactBytes, false)
	require.NoError(t, err)
	c.Put(Entry{Key: key, Judge: "grader", Model: "m", Rubric: "summary", Case: "c1", At: time.Now(),
		Verdict: rubric.Verdict{Score: 4, Pass: true, Reason: "it echoed " + secretValue}})
	require.NoError(t, c.Err())
	require.NoError(t, c.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), secretValue, "the cache file is redacted")

	c, err = OpenCache(path, nil, false)
	require.NoError(t, err)
	e, ok := c.Get(key)
	require.True(t, ok)
	assert.Equal(t, 4.0, e.Score)
	c.Close()

	c, err = OpenCache(path, nil, true)
	require.NoError(t, err)
	_, ok = c.Get(key)
	assert.False(t, ok, "-rejudge reads nothing")
	c.Put(Entry{Key: key, Judge: "grader", Model: "m", Rubric: "summary", At: time.Now(), Verdict: rubric.Verdict{Score: 2, Reason: "again"}})
	c.Close()
	c, err = OpenCache(path, nil, false)
	require.NoError(t, err)
	e, _ = c.Get(key)
	assert.Equal(t, 2.0, e.Score, "the judgment appended last wins")
	c.Close()

	bad := map[string]struct{ line, want string }{
		"not JSON":        {`{"key": `, ":2: json: not a judgment"},
		"a short key":     {`{"key": "ab", "judge": "g", "model": "m", "rubric": "r", "at": "2026-01-01T00:00:00Z", "score": 1, "pass": false, "reason": "x"}`, ":2: key:"},
		"a score of 9":    {`{"key": "` + key + `", "judge": "g", "model": "m", "rubric": "r", "at": "2026-01-01T00:00:00Z", "score": 9, "pass": true, "reason": "x"}`, ":2: score: 9 (allowed: 0 to 5)"},
		"an unknown key":  {`{"key": "` + key + `", "judge": "g", "model": "m", "rubric": "r", "at": "2026-01-01T00:00:00Z", "score": 1, "pass": false, "reason": "x", "extra": 1}`, ":2: json: not a judgment"},
		"a control char":  {`{"key": "` + key + `", "judge": "g\u001b[2J", "model": "m", "rubric": "r", "at": "2026-01-01T00:00:00Z", "score": 1, "pass": false, "reason": "x"}`, ":2: judge:"},
		"a line too long": {strings.Repeat("x", maxCacheLine+10), ":2: a line longer than"},
	}
	for name, tc := range bad {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cache.jsonl")
			good, _ := os.ReadFile(path)
			first, _, _ := strings.Cut(string(good), "\n")
			require.NoError(t, os.WriteFile(p, []byte(first+"\n"+tc.line+"\n"), 0o644))
			_, err := OpenCache(p, nil, false)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+tc.want)
			assert.Contains(t, err.Error(), "-rejudge")
		})
	}
}

// TestKappa: Cohen's kappa on a known table, a failed judgment counted as
// a fail and apart, and undefined where one side is all alike.
func TestKappa(t *testing.T) {
	// 20 both pass, 5 label pass / judge fail, 10 label fail / judge pass,
	// 15 both fail: p_o 0.7, p_e 0.5·0.6 + 0.5·0.4 = 0.5, kappa 0.4.
	var labels []rubric.Label
	var results []Result
	add := func(n int, label, judged bool) {
		for range n {
			labels = append(labels, rubric.Label{Pass: label})
			results = append(results, Result{Verdict: rubric.Verdict{Pass: judged}})
		}
	}
	add(20, true, true)
	add(5, true, false)
	add(10, false, true)
	add(15, false, false)
	a := Compare(labels, results)
	assert.InDelta(t, 0.7, a.Accuracy, 1e-12)
	assert.InDelta(t, 0.4, a.Kappa, 1e-12)
	assert.Equal(t, [2][3]int{{20, 5, 0}, {10, 15, 0}}, a.Confusion)

	results[0] = Result{Err: ErrNotJSON} // a pass label, no verdict: a fail
	a = Compare(labels, results)
	assert.Equal(t, 1, a.NoVerdict)
	assert.Equal(t, [2][3]int{{19, 5, 1}, {10, 15, 0}}, a.Confusion)
	assert.InDelta(t, 0.68, a.Accuracy, 1e-12)
	assert.Contains(t, strings.Join(a.Lines("labels", "grader"), "\n"), "1 without a verdict (counted as fail)")

	all := Compare([]rubric.Label{{Pass: true}, {Pass: true}}, []Result{{Verdict: rubric.Verdict{Pass: true}}, {Verdict: rubric.Verdict{Pass: true}}})
	assert.True(t, math.IsNaN(all.Kappa), "everything passes on both sides: chance explains it all")
	assert.Equal(t, 1.0, all.Accuracy)

	b := Between(results, results)
	assert.Equal(t, 1.0, b.Accuracy, "a judge agrees with itself")
	assert.Equal(t, 1, b.NoVerdict)
}

// TestLengthOf: a judge whose scores grow with the answers' length shows
// a strong correlation where the labels show none.
func TestLengthOf(t *testing.T) {
	var labels []rubric.Label
	var results []Result
	for i := range 40 {
		words := strings.Repeat("w ", 5+i)
		labels = append(labels, rubric.Label{Item: rubric.Item{Answer: words}, Pass: i%2 == 0})
		results = append(results, Result{Verdict: rubric.Verdict{Score: 1 + float64(i)/10}})
	}
	b := LengthOf(labels, results)
	assert.Equal(t, 40, b.N)
	assert.InDelta(t, 1, b.R, 1e-9)
	assert.Less(t, math.Abs(b.LabelR), 0.1)
	assert.Contains(t, b.String(), "r = +1.00 over 40 answers")
	assert.True(t, math.IsNaN(pearson([]float64{1, 1, 1}, []float64{1, 2, 3})))
	assert.True(t, math.IsNaN(pearson([]float64{1, 2}, []float64{1, 2})))
}

// TestFailureKinds: each failure has a kind of its own, and the account
// reads it back from a judgment's error.
func TestFailureKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Failures {
		k := FailureKind(f)
		assert.False(t, seen[k], "kind %q twice", k)
		seen[k] = true
		assert.Equal(t, k, failureOf(f.Error()+": detail"))
	}
	assert.Equal(t, "other", FailureKind(errors.New("x")))
}
