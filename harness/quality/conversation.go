package quality

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// A conversation case (turns: instead of messages or prompt) is played turn
// by turn at a sessions: or session_rate: level: each turn's request holds
// the history so far, the model's own replies in between (history: live,
// the default) or the recorded ones of assistant: (history: recorded), and
// a user thinks before each turn after the first (think:). The case's
// checks judge the last turn's answer; the turns before it are timed only.

// The histories of a conversation.
const (
	HistoryLive     = "live"     // the model's own replies go between the turns
	HistoryRecorded = "recorded" // the case's assistant entries do
)

// conversationKeys are a case's keys for a conversation.
var conversationKeys = []string{"turns", "history", "assistant", "think"}

// Think is the pause a user takes before each turn after the first: Mean
// exactly when Stddev is 0, else a lognormal draw of that mean and
// standard deviation (never negative, its mean and spread as given), from
// a seeded source so that a run replays.
type Think struct {
	Mean, Stddev time.Duration
}

// thinkExample is what think: takes, as errors show it.
const thinkExample = `"2s", or {"mean": "2s", "stddev": "1s"}`

// Draw is one pause.
func (t Think) Draw(r *rand.Rand) time.Duration {
	if t.Stddev == 0 || t.Mean == 0 {
		return t.Mean
	}
	m, s := float64(t.Mean), float64(t.Stddev)
	v := math.Log1p(s * s / (m * m))
	d := math.Exp(math.Log(m) - v/2 + math.Sqrt(v)*r.NormFloat64())
	return time.Duration(min(d, float64(sample.MaxDuration)))
}

// String is the think time as a case writes it.
func (t Think) String() string {
	if t.Stddev == 0 {
		return t.Mean.String()
	}
	return fmt.Sprintf("{mean: %s, stddev: %s}", t.Mean, t.Stddev)
}

// IsConversation reports whether the case is a conversation (turns:).
func (c *Case) IsConversation() bool { return c.Turns != nil }

// parseConversationKey decodes a conversation key of a case line; known is
// false for a key that is none of conversationKeys.
func parseConversationKey(c *Case, k string, v json.RawMessage, fail func(key, format string, a ...any)) (known, ok bool) {
	var err error
	want := "a string"
	switch k {
	case "turns":
		err, want = json.Unmarshal(v, &c.Turns), `an array of strings, one user message a turn, e.g. ["Plan a day in Lisbon.", "And the evening?"]`
		if err == nil && c.Turns == nil {
			c.Turns = []string{} // turns: null is an empty conversation, not none
		}
	case "history":
		err = json.Unmarshal(v, &c.History)
	case "assistant":
		err, want = json.Unmarshal(v, &c.Assistant), "an array of strings, the reply before each turn after the first"
	case "think":
		var t Think
		if t, err = parseThink(v); err == nil {
			c.Think = &t
			return true, true
		}
		fail(k, "%v (allowed: a duration ≥ 0, %s)", err, thinkExample)
		return true, false
	default:
		return false, false
	}
	if err != nil {
		fail(k, "want %s", want)
		return true, false
	}
	return true, true
}

// parseThink reads think: a duration, or {mean, stddev}.
func parseThink(v json.RawMessage) (Think, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		d, err := duration("", s)
		return Think{Mean: d}, err
	}
	var m map[string]string
	if err := json.Unmarshal(v, &m); err != nil {
		return Think{}, fmt.Errorf("not a duration or {mean, stddev}")
	}
	var t Think
	for k, s := range m {
		d, err := duration(k+": ", s)
		switch {
		case err != nil:
			return Think{}, err
		case k == "mean":
			t.Mean = d
		case k == "stddev":
			t.Stddev = d
		default:
			return Think{}, fmt.Errorf("%s: unknown key (allowed: mean, stddev)", k)
		}
	}
	if _, ok := m["mean"]; !ok {
		return Think{}, fmt.Errorf("mean: missing")
	}
	return t, nil
}

// duration is a think time: a Go duration, not negative.
func duration(key, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s%q is not a duration", key, s)
	case d < 0:
		return 0, fmt.Errorf("%s%q is negative: a user cannot answer before reading", key, s)
	case d > sample.MaxDuration:
		return 0, fmt.Errorf("%s%q is longer than a day", key, s)
	}
	return d, nil
}

// validateConversation checks a conversation case: turns, each a message;
// its history; the recorded replies a recorded history needs, one before
// each turn after the first. The keys of a conversation on a case that is
// none are mistakes too.
func validateConversation(c *Case, fail func(key, format string, a ...any)) {
	if !c.IsConversation() {
		for _, k := range []struct {
			key string
			set bool
		}{{"history", c.History != ""}, {"assistant", c.Assistant != nil}, {"think", c.Think != nil}} {
			if k.set {
				fail(k.key, "given without turns (a conversation's key: give turns, one user message a turn)")
			}
		}
		return
	}
	switch n := len(c.Turns); {
	case len(c.Messages) > 0 || c.Prompt != "":
		fail("turns", "give turns, messages or prompt: one of them (a conversation's first turn is turns[0])")
	case n == 0:
		fail("turns", "empty: a conversation needs at least one turn (one user message a turn)")
	case n > sample.MaxTurns:
		fail("turns", "%d turns (allowed: at most %d)", n, sample.MaxTurns)
	}
	for i, t := range c.Turns {
		if strings.TrimSpace(t) == "" {
			fail(fmt.Sprintf("turns[%d]", i), "empty")
		}
	}
	switch c.History {
	case "", HistoryLive:
		if c.Assistant != nil {
			fail("assistant", "given, but the history is live (the model's own replies go between the turns): set history: recorded, or drop assistant")
		}
	case HistoryRecorded:
		validateRecorded(c, fail)
	default:
		fail("history", "%q is not a history (allowed: live, the model's own replies; recorded, the assistant entries)", c.History)
	}
}

// validateRecorded: a recorded history has the reply before each later
// turn, and nothing else.
func validateRecorded(c *Case, fail func(key, format string, a ...any)) {
	want := max(len(c.Turns)-1, 0)
	switch {
	case c.Assistant == nil:
		fail("assistant", "missing: history: recorded needs the assistant's reply before each turn after the first (%d entries)", want)
	case len(c.Assistant) != want:
		fail("assistant", "%d entries for %d turns (want %d: the reply before each turn after the first)", len(c.Assistant), len(c.Turns), want)
	}
	for i, a := range c.Assistant {
		if strings.TrimSpace(a) == "" {
			fail(fmt.Sprintf("assistant[%d]", i), "empty")
		}
	}
}
