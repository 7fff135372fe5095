package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQualityAxisJudgePass: with Quality judge_pass the board's quality
// axis is the judge's verdicts, not the matcher's: an endpoint whose
// answers all match but half of which the judge fails ranks below one
// the judge passes, where on accuracy the two tie.
func TestQualityAxisJudgePass(t *testing.T) {
	ss := samples(60, endpoint{name: "fluent", ttft: 20e6, jitter: 0.1}, endpoint{name: "faithful", ttft: 20e6, jitter: 0.1})
	for i := range ss {
		s := &ss[i]
		pass := s.Endpoint == "faithful" || s.Seq%2 == 0
		score := 2.0
		if pass {
			score = 5
		}
		s.Quality.JudgeChecked, s.Quality.JudgePass, s.Quality.JudgeScore = true, pass, &score
	}
	byAxis := func(quality string) (Axis, Ranking) {
		b := NewBoard(ss, Options{Quality: quality})
		ax, ok := b.Axis(RoleQuality)
		require.True(t, ok)
		for _, r := range b.Ranks {
			if r.Axis.Role == RoleQuality {
				return ax, r
			}
		}
		t.Fatal("no quality ranking")
		return ax, Ranking{}
	}
	ax, r := byAxis("judge_pass")
	assert.Equal(t, "judge pass", ax.Label)
	require.Len(t, r.Order, 2)
	assert.Equal(t, "faithful", r.Order[0].Name)
	assert.False(t, r.Tied[0], "100%% against 50%% judged pass over 240 answers each is no tie")
	assert.Equal(t, "100%", ax.Show(r.Order[0]))
	assert.Equal(t, "50%", ax.Show(r.Order[1]))

	ax, r = byAxis("")
	assert.Equal(t, "accuracy", ax.Label)
	assert.True(t, r.Tied[0], "both match every answer: tied on accuracy")
	assert.Contains(t, QualityAxes(), "judge_pass")
	assert.NotContains(t, QualityAxes(), "error_rate")
}
