package sample_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestReadRefusesImpossibleJudgments: a judgment is a verdict or a
// failure, never both, on a scale, in bounded words; a file saying
// otherwise is refused at its line, naming the key.
func TestReadRefusesImpossibleJudgments(t *testing.T) {
	const verdict = `"content":"Positive","quality":{"case":"chat-001","judge_checked":true,"judge_pass":true,"judge_score":5,"judge_reason":"covers it"}`
	cases := map[string]struct{ quality, want string }{
		"a pass beside an error":   {`"quality":{"judge_checked":true,"judge_pass":true,"judge_score":5,"judge_error":"judge request failed"}`, `quality.judge_error: "judge request failed" beside a verdict`},
		"a score beside an error":  {`"quality":{"judge_checked":true,"judge_score":2,"judge_error":"judge request failed"}`, `quality.judge_error`},
		"a verdict never asked":    {`"quality":{"judge_pass":true,"judge_score":5}`, `quality.judge_checked: false, but the sample holds a judgment`},
		"a verdict without score":  {`"quality":{"judge_checked":true,"judge_pass":true}`, `quality.judge_score: missing`},
		"a score beyond the scale": {`"quality":{"judge_checked":true,"judge_pass":true,"judge_score":9}`, `quality.judge_score: 9 (allowed: 0 to 5)`},
		"a negative score":         {`"quality":{"judge_checked":true,"judge_score":-1}`, `quality.judge_score: -1`},
		"a reason of a book":       {`"quality":{"judge_checked":true,"judge_score":1,"judge_reason":"` + strings.Repeat("x", sample.MaxJudgeText+1) + `"}`, `quality.judge_reason, judge_error: 1025 and 0 bytes`},
	}
	dir := t.TempDir()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".samples.jsonl")
			bad := strings.Replace(realLine, `"content":"Positive"`, `"content":"Positive",`+tc.quality, 1)
			require.NoError(t, os.WriteFile(p, []byte(realLine+"\n"+bad+"\n"), 0o644))
			_, err := sample.Read(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+":2: "+tc.want)
		})
	}
	p := filepath.Join(dir, "judged.samples.jsonl")
	good := strings.Replace(realLine, `"content":"Positive"`, verdict, 1)
	failed := strings.Replace(realLine, `"content":"Positive"`, `"content":"Positive","quality":{"judge_checked":true,"judge_error":"judge answer not JSON"}`, 1)
	require.NoError(t, os.WriteFile(p, []byte(good+"\n"+failed+"\n"), 0o644))
	ss, err := sample.Read(p)
	require.NoError(t, err)
	require.Len(t, ss, 2)
	assert.True(t, ss[0].Quality.Pass())
	assert.False(t, ss[1].Quality.Pass(), "a judgment that failed is no pass")
}
