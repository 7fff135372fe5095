package load_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
)

// cacheFixture is two cases, with or without a system prompt.
func cacheFixture(t *testing.T, system string) *load.Fixture {
	t.Helper()
	f, err := load.NewFixture([]quality.Case{{ID: "a", Prompt: "What is two plus two?"}, {ID: "b", Prompt: "Name a colour."}},
		load.FixtureOptions{System: system})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCachePolicies: bust puts a new marker first in the user message of
// every prompt, and warm the shared prefix before the marker in even
// in odd ones, both at the start of the user message, before the
// question as the fixture wrote it; the fixture's messages are not changed.
func TestCachePolicies(t *testing.T) {
	for name, system := range map[string]string{"with a system prompt": "Answer briefly.", "without one": ""} {
		t.Run(name, func(t *testing.T) {
			fix := cacheFixture(t, system)
			msgs0 := fix.Prompt(0).Request.Messages
			before := msgs0[len(msgs0)-1].Content
			if src := load.Cache(fix, sample.CacheNatural, 0); src != load.Source(fix) {
				t.Errorf("natural is not the fixture as it is")
			}
			bust := load.Cache(fix, sample.CacheBust, 0)
			warm := load.Cache(fix, sample.CacheWarm, 32)
			prefix := load.SharedPrefix(32)
			heads := map[string]bool{}
			for i := range 6 {
				for _, p := range []load.Prompt{bust.Prompt(i), bust.Prompt(i)} { // asked twice: a warm-up asks prompt 0 again
					msgs := p.Request.Messages
					orig := fix.Prompt(i).Request.Messages
					require.Len(t, msgs, len(orig))
					u := len(msgs) - 1 // the case's user message, after any system prompt
					head, rest, _ := strings.Cut(msgs[u].Content, "\n\n")
					if !strings.HasPrefix(head, "[request ") || rest != orig[u].Content {
						t.Fatalf("bust prompt %d: user message %q, want the marker, a blank line, then the question as written", i, msgs[u].Content)
					}
					if heads[head] {
						t.Errorf("bust prompt %d: marker %q repeated", i, head)
					}
					heads[head] = true
					for k := 0; k < u; k++ {
						assert.Equal(t, orig[k], msgs[k], "bust prompt %d: message %d is the fixture's", i, k)
					}
				}
				w := warm.Prompt(i).Request.Messages
				content := w[len(w)-1].Content
				want := strings.HasPrefix(content, prefix+"\n\n[request ")
				if i%2 == 1 {
					want = strings.HasPrefix(content, "[request ") && strings.Contains(content, "]\n\n"+prefix+"\n\n")
				}
				if !want {
					t.Errorf("warm prompt %d starts %q: want the prefix before the marker in even prompts, after it in odd ones", i, content[:min(len(content), 80)])
				}
				next := warm.Prompt(i + 1).Request.Messages
				if len(strings.Fields(content)) != len(strings.Fields(next[len(next)-1].Content))-len(strings.Fields(fix.Prompt(i + 1).Request.Messages[len(next)-1].Content))+len(strings.Fields(fix.Prompt(i).Request.Messages[len(w)-1].Content)) {
					t.Errorf("warm prompts %d and %d differ in length beyond their questions: a hit and a miss must send the same words", i, i+1)
				}
			}
			if last := fix.Prompt(0).Request.Messages; last[len(last)-1].Content != before {
				t.Errorf("the fixture's messages were changed: %q", last[len(last)-1].Content)
			}
		})
	}
}

// SharedPrefix is as long as asked, in words, and the same every time.
func TestSharedPrefix(t *testing.T) {
	for _, n := range []int{16, 100, 1024} {
		p := load.SharedPrefix(n)
		if got := len(strings.Fields(p)); got != n {
			t.Errorf("SharedPrefix(%d) has %d words", n, got)
		}
		if load.SharedPrefix(n) != p {
			t.Errorf("SharedPrefix(%d) differs between calls: no two runs would share it", n)
		}
	}
}
