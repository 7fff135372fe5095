package judge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
)

// TestHostileJudgeAnswers: whatever a judge answers is a verdict the
// strict reader accepts or a failure naming why — a key given twice (two
// decoders would read two verdicts), numbers that overflow, deep
// nesting, NUL, escapes — and a verdict it accepts is one the cache file
// reads back on the next run and the samples file accepts (a reason of
// 300 emoji passes the schema's 300 characters and is 1,200 bytes);
// what the error quotes of the answer is escaped, and a secret the judge
// echoes is not in the cache file.
func TestHostileJudgeAnswers(t *testing.T) {
	const key = "sk-judge-echo-0123456789abcdef"
	cases := map[string]struct {
		content string
		fail    error  // nil: a verdict
		reason  string // part of the verdict's reason as cached, when one
	}{
		"a key twice, both passing":   {content: `{"score": 4, "pass": true, "reason": "x", "score": 5}`, fail: ErrSchema},
		"a key twice, contradicting":  {content: `{"score": 5, "pass": true, "pass": false, "reason": "x"}`, fail: ErrSchema},
		"a key twice, \\u-escaped":    {content: `{"score": 4, "pass": true, "reason": "x", "sc\u006fre": 5}`, fail: ErrSchema},
		"a score that overflows":      {content: `{"score": 1e400, "pass": true, "reason": "x"}`, fail: ErrSchema},
		"a negative zero":             {content: `{"score": -0, "pass": false, "reason": "x"}`, fail: ErrSchema},
		"a reason nested deep":        {content: `{"score": 4, "pass": true, "reason": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, fail: ErrNotJSON},
		"NUL after the object":        {content: `{"score": 4, "pass": true, "reason": "x"}` + "\x00", fail: ErrNotJSON},
		"a BOM before the object":     {content: "\ufeff" + `{"score": 4, "pass": true, "reason": "x"}`, fail: ErrNotJSON},
		"an escape outside a string":  {content: "\x1b]0;pwned\x07", fail: ErrNotJSON},
		"a reason past 300 chars":     {content: `{"score": 4, "pass": true, "reason": "` + strings.Repeat("a", 301) + `"}`, fail: ErrSchema},
		"300 emoji":                   {content: `{"score": 4, "pass": true, "reason": "` + strings.Repeat("😀", 300) + `"}`, reason: "😀"},
		"an escape in the reason":     {content: `{"score": 4, "pass": true, "reason": "ok \u001b]0;pwned\u0007"}`, reason: "ok "},
		"a secret echoed":             {content: `{"score": 4, "pass": true, "reason": "the key is ` + key + `"}`, reason: "the key is [redacted]"},
		"invalid UTF-8 in the reason": {content: "{\"score\": 4, \"pass\": true, \"reason\": \"a\xffb\"}", reason: "a"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cache.jsonl")
			c, err := OpenCache(path, secret.New(key).RedactBytes, false)
			require.NoError(t, err)
			var sent []sample.Sample
			j := &Judge{Name: "grader", Identity: Identity{Model: "m", MaxTokens: 64}, Doer: &fakeJudge{answer: answering(tc.content)}, Cache: c}
			res := j.Judge(context.Background(), asks("an answer"), func(s *sample.Sample, _ Ask) { sent = append(sent, *s) })
			require.NoError(t, c.Close())
			require.Len(t, res, 1)
			require.Len(t, sent, 1)
			require.NoError(t, sent[0].Check(), "the judge's sample passes the samples file's check")
			if tc.fail != nil {
				require.ErrorIs(t, res[0].Err, tc.fail)
				assert.NotContains(t, res[0].Err.Error(), "\x1b", "the answer quoted raw")
				assert.NotContains(t, res[0].Err.Error(), "\x00")
				return
			}
			require.NoError(t, res[0].Err)
			back, err := OpenCache(path, nil, false)
			require.NoError(t, err, "the cache written reads back")
			defer back.Close()
			e, ok := back.Get(Key(j.Identity, five, asks("an answer")[0].Item))
			require.True(t, ok, "the verdict was cached")
			assert.Contains(t, e.Reason, tc.reason)
			assert.LessOrEqual(t, len(e.Reason), sample.MaxJudgeText)
			raw, _ := os.ReadFile(path)
			assert.NotContains(t, string(raw), key)
		})
	}
}

// TestHostileCacheFile: a cache file as a checkout or a killed run leaves
// it — CRLF line ends, a BOM, a last line cut short — is read, or refused
// naming file:line and the way out; never read as other judgments.
func TestHostileCacheFile(t *testing.T) {
	good := `{"key": "` + strings.Repeat("ab", 32) + `", "judge": "g", "model": "m", "rubric": "r", "at": "2026-01-01T00:00:00Z", "score": 4, "pass": true, "reason": "x"}`
	for name, tc := range map[string]struct{ text, err string }{
		"CRLF":                {text: good + "\r\n" + good + "\r\n"},
		"a BOM":               {text: "\ufeff" + good + "\n"},
		"cut mid-line":        {text: good + "\n" + good[:40], err: ":2: json: not a judgment"},
		"a key twice":         {text: strings.Replace(good, `"score": 4`, `"score": 4, "score": 1`, 1) + "\n", err: ":1: score: given twice"},
		"NUL":                 {text: good + "\n\x00\n", err: ":2: json: not a judgment"},
		"an escape in a case": {text: strings.Replace(good, `"rubric": "r"`, `"rubric": "r", "case": "c\u001b[2J"`, 1) + "\n", err: ":1: case:"},
		"a reason of 2 KiB":   {text: strings.Replace(good, `"reason": "x"`, `"reason": "`+strings.Repeat("x", 2048)+`"`, 1) + "\n", err: ":1: reason: 2048 bytes"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cache.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(tc.text), 0o644))
			c, err := OpenCache(p, nil, false)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), p+tc.err)
				assert.Contains(t, err.Error(), "-rejudge")
				assert.NotContains(t, err.Error(), "\x1b")
				return
			}
			require.NoError(t, err)
			defer c.Close()
			assert.Equal(t, 1, c.Len())
		})
	}
}

var _ = rubric.MaxReason
