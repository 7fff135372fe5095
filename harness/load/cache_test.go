package load_test

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

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

// TestCachePolicies: bust puts a new marker first in every prompt, and
// warm the shared prefix before the marker in even prompts and after it
// in odd ones; the question is sent as the fixture wrote it, and the
// fixture's own messages are not changed.
func TestCachePolicies(t *testing.T) {
	for name, system := range map[string]string{"with a system prompt": "Answer briefly.", "without one": ""} {
		t.Run(name, func(t *testing.T) {
			fix := cacheFixture(t, system)
			before := fix.Prompt(0).Request.Messages[0].Content
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
					first := msgs[0]
					if first.Role != openai.ChatMessageRoleSystem || !strings.HasPrefix(first.Content, "[request ") {
						t.Fatalf("bust prompt %d starts with %s %q, want a system prompt starting with the marker", i, first.Role, first.Content)
					}
					head, _, _ := strings.Cut(first.Content, "\n")
					if heads[head] {
						t.Errorf("bust prompt %d: marker %q repeated", i, head)
					}
					heads[head] = true
					checkQuestion(t, fix.Prompt(i), msgs, system, strings.TrimPrefix(first.Content, head+"\n\n"))
				}
				w := warm.Prompt(i).Request.Messages
				content := w[0].Content
				want := strings.HasPrefix(content, prefix+"\n\n[request ")
				if i%2 == 1 {
					want = strings.HasPrefix(content, "[request ") && strings.Contains(content, "]\n\n"+prefix)
				}
				if !want {
					t.Errorf("warm prompt %d starts %q: want the prefix before the marker in even prompts, after it in odd ones", i, content[:min(len(content), 80)])
				}
				if len(strings.Fields(content)) != len(strings.Fields(warm.Prompt(i+1).Request.Messages[0].Content)) {
					t.Errorf("warm prompts %d and %d differ in length: a hit and a miss must send the same words", i, i+1)
				}
			}
			if fix.Prompt(0).Request.Messages[0].Content != before {
				t.Errorf("the fixture's messages were changed: %q", fix.Prompt(0).Request.Messages[0].Content)
			}
		})
	}
}

// checkQuestion: every message but the marked system prompt is the
// fixture's, and the system prompt after the head is the fixture's.
func checkQuestion(t *testing.T, orig load.Prompt, msgs []openai.ChatCompletionMessage, system, rest string) {
	t.Helper()
	om := orig.Request.Messages
	if system == "" {
		if len(msgs) != len(om)+1 || strings.Contains(msgs[0].Content, "\n") {
			t.Errorf("without a system prompt the marker is a system message of its own: got %d messages for %d", len(msgs), len(om))
		}
		om = append([]openai.ChatCompletionMessage{msgs[0]}, om...)
	} else if rest != system {
		t.Errorf("system prompt after the marker is %q, want %q", rest, system)
	}
	for k := 1; k < len(om); k++ {
		if msgs[k].Content != om[k].Content || msgs[k].Role != om[k].Role {
			t.Errorf("message %d is %s %q, want the fixture's %s %q", k, msgs[k].Role, msgs[k].Content, om[k].Role, om[k].Content)
		}
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
