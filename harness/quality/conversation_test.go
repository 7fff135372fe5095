package quality

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

const convLine = `{"id":"c1","turns":["Plan a day in Lisbon.","And the evening?","Name the tram you would take."],"think":"2s","expected":"28","match":{"type":"contains"},"answer":"Tram 28","wrong_answer":"Tram 15"}`

func TestLoadConversations(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "c.jsonl", convLine+"\n"+
		`{"id":"c2","turns":["Hi.","Bye."],"history":"recorded","assistant":["Hello!"],"think":{"mean":"1500ms","stddev":"500ms"},"expected":"bye","match":{"type":"normalized"},"answer":"Bye","wrong_answer":"Hi"}`+"\n"+
		`{"id":"c3","turns":["Only one."],"expected":"ok","match":{"type":"normalized"},"answer":"ok","wrong_answer":"no"}`+"\n")
	cases, err := LoadCases(p)
	if err != nil {
		t.Fatal(err)
	}
	c1, c2, c3 := cases[0], cases[1], cases[2]
	if !c1.IsConversation() || len(c1.Turns) != 3 || c1.History != "" || *c1.Think != (Think{Mean: 2 * time.Second}) {
		t.Errorf("c1 = %+v", c1)
	}
	if c2.History != HistoryRecorded || c2.Assistant[0] != "Hello!" || *c2.Think != (Think{Mean: 1500 * time.Millisecond, Stddev: 500 * time.Millisecond}) {
		t.Errorf("c2 = %+v", c2)
	}
	if !c3.IsConversation() || c3.Think != nil || c3.Render() != nil {
		t.Errorf("c3 = %+v: a one-turn conversation, without think time, and no messages of its own", c3)
	}
	if r := NewCheck(&c1).Run("Take tram 28 up the hill", "stop"); !r.Pass() {
		t.Errorf("the case's matcher judges the last turn's answer: %+v", r)
	}
}

// TestConversationErrors: each mistake in a conversation case is a
// file:line error naming the key, before any request.
func TestConversationErrors(t *testing.T) {
	line := func(old, new string) string {
		if !strings.Contains(convLine, old) {
			panic(old)
		}
		return strings.Replace(convLine, old, new, 1)
	}
	turns := `"turns":["Plan a day in Lisbon.","And the evening?","Name the tram you would take."]`
	cases := map[string]struct{ line, want string }{
		"empty turns":          {line(turns, `"turns":[]`), ":1: turns: empty: a conversation needs at least one turn"},
		"null turns":           {line(turns, `"turns":null`), ":1: turns: empty"},
		"an empty turn":        {line(`"And the evening?"`, `"  "`), ":1: turns[1]: empty"},
		"turns not strings":    {line(turns, `"turns":[1,2]`), ":1: turns: want an array of strings, one user message a turn"},
		"turns and prompt":     {line(turns, turns+`,"prompt":"x"`), ":1: turns: give turns, messages or prompt: one of them"},
		"negative think":       {line(`"think":"2s"`, `"think":"-2s"`), `:1: think: "-2s" is negative: a user cannot answer before reading (allowed: a duration ≥ 0, "2s", or {"mean": "2s", "stddev": "1s"})`},
		"negative stddev":      {line(`"think":"2s"`, `"think":{"mean":"2s","stddev":"-1s"}`), `:1: think: stddev: "-1s" is negative`},
		"think not a duration": {line(`"think":"2s"`, `"think":"soon"`), `:1: think: "soon" is not a duration`},
		"think without mean":   {line(`"think":"2s"`, `"think":{"stddev":"1s"}`), ":1: think: mean: missing"},
		"think unknown key":    {line(`"think":"2s"`, `"think":{"mean":"2s","sd":"1s"}`), ":1: think: sd: unknown key (allowed: mean, stddev)"},
		"think a number":       {line(`"think":"2s"`, `"think":2`), ":1: think: not a duration or {mean, stddev}"},
		"recorded without assistant": {line(`"think":"2s"`, `"history":"recorded"`),
			":1: assistant: missing: history: recorded needs the assistant's reply before each turn after the first (2 entries)"},
		"recorded, too few": {line(`"think":"2s"`, `"history":"recorded","assistant":["a"]`),
			":1: assistant: 1 entries for 3 turns (want 2: the reply before each turn after the first)"},
		"recorded, an empty reply": {line(`"think":"2s"`, `"history":"recorded","assistant":["a",""]`), ":1: assistant[1]: empty"},
		"assistant, live":          {line(`"think":"2s"`, `"assistant":["a","b"]`), ":1: assistant: given, but the history is live"},
		"unknown history":          {line(`"think":"2s"`, `"history":"replayed"`), `:1: history: "replayed" is not a history (allowed: live`},
		"think without turns": {`{"id":"p","prompt":"x","think":"1s","expected":"a","match":{"type":"normalized"},"answer":"a","wrong_answer":"b"}`,
			":1: think: given without turns"},
		"unknown key lists them": {line(`"think"`, `"thinks"`), ":1: thinks: unknown key (allowed: id, messages, prompt, vars, expected, match, schema, tags, answer, wrong_answer, tools, tool_choice, expect_tool, answer_calls, tool_results, max_steps, turns, history, assistant, think)"},
	}
	dir := t.TempDir()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(name, " ", "_")+".jsonl", tc.line+"\n")
			_, err := LoadCases(p)
			if err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, p+tc.want)
			}
			var ce *CaseError
			if !errors.As(err, &ce) {
				t.Errorf("%T is not a *CaseError", err)
			}
		})
	}
}

// TestThinkDraw: a think time of mean and stddev is drawn with that mean
// and spread, never negative, the same from the same seed; without a
// stddev it is the mean itself.
func TestThinkDraw(t *testing.T) {
	th := Think{Mean: 2 * time.Second, Stddev: time.Second}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	var sum, sq float64
	for range n {
		d := th.Draw(r)
		if d < 0 {
			t.Fatalf("drew %v", d)
		}
		x := d.Seconds()
		sum, sq = sum+x, sq+x*x
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	if math.Abs(mean-2) > 0.05 || math.Abs(sd-1) > 0.05 {
		t.Errorf("mean %.3f s, stddev %.3f s over %d draws; want 2 and 1", mean, sd, n)
	}
	a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	if th.Draw(a) != th.Draw(b) {
		t.Error("the same seed drew two think times")
	}
	if d := (Think{Mean: 3 * time.Second}).Draw(r); d != 3*time.Second {
		t.Errorf("a fixed think time drew %v", d)
	}
}

// TestShippedConversations: fixtures/conversations.jsonl holds at least
// ten conversations of three to six turns, every turn's message its own
// (the simulator answers a turn by its last user message, so two alike
// would get one answer), and its checks pass and fail as
// TestShippedFixtures proves for every set.
func TestShippedConversations(t *testing.T) {
	cases, err := LoadCases("../../fixtures/conversations.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Errorf("%d conversations, want ≥ 10", len(cases))
	}
	seen := map[string]string{}
	recorded := 0
	for _, c := range cases {
		if n := len(c.Turns); n < 3 || n > 6 {
			t.Errorf("%s: %d turns, want 3 to 6", c.ID, n)
		}
		if c.History == HistoryRecorded {
			recorded++
		}
		for _, m := range c.Turns {
			if other, dup := seen[m]; dup {
				t.Errorf("%s: turn %q is also %s's", c.ID, m, other)
			}
			seen[m] = c.ID
		}
	}
	if recorded == 0 || recorded == len(cases) {
		t.Errorf("%d of %d conversations recorded: ship both histories", recorded, len(cases))
	}
}
