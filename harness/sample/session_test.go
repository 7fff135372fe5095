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

// TestReadRefusesImpossibleTurns: a conversation's turn fields are held to
// what a conversation can be — a turn of a session, within its turns, a
// think time only before a later turn — at file:line, naming the key.
func TestReadRefusesImpossibleTurns(t *testing.T) {
	const turn = `"seq":3,"session":"9cc509ef.1/4","turn":2,"turns":3,"think_ns":2000000000`
	cases := map[string]struct{ new, want string }{
		"turn without session": {`"seq":3,"turn":1,"turns":1`, "turn: 1 without a session"},
		"turn beyond turns":    {strings.Replace(turn, `"turn":2`, `"turn":4`, 1), "turn: 4 of 3 turns"},
		"turns without turn":   {`"seq":3,"session":"s","turns":3`, "turn: 0 of 3 turns"},
		"negative turn":        {strings.Replace(turn, `"turn":2`, `"turn":-1`, 1), "turn: -1 of 3 turns"},
		"too many turns":       {strings.Replace(turn, `"turns":3`, `"turns":1001`, 1), "turn: 2 of 1001 turns (allowed: 1 to 1000)"},
		"negative think":       {strings.Replace(turn, `2000000000`, `-5`, 1), "think_ns: -5 ns"},
		"think before turn 1":  {strings.Replace(turn, `"turn":2`, `"turn":1`, 1), "think_ns: 2s before turn 1"},
		"session with ESC":     {strings.Replace(turn, `9cc509ef.1/4`, `\u001b[2J`, 1), `session: "\x1b[2J" holds a control character`},
		"session too long":     {strings.Replace(turn, `9cc509ef.1/4`, strings.Repeat("s", 300), 1), "session: 300 bytes (allowed: at most 256)"},
	}
	dir := t.TempDir()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".samples.jsonl")
			body := strings.Replace(realLine, `"seq":3`, turn, 1) + "\n" + strings.Replace(realLine, `"seq":3`, tc.new, 1) + "\n"
			require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
			_, err := sample.Read(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+":2: "+tc.want)
		})
	}
	p := filepath.Join(dir, "turn.samples.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(realLine, `"seq":3`, turn, 1)+"\n"), 0o644))
	s, err := sample.Read(p)
	require.NoError(t, err, "a later turn with its think time is a sample")
	assert.Equal(t, "9cc509ef.1/4", s[0].Session)
	assert.Equal(t, 2, s[0].Turn)
	assert.Equal(t, 3, s[0].Turns)
}
