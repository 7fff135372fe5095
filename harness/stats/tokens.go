package stats

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/sample"
)

// Tokens is how the server's usage and the stream agreed about the output
// tokens of a run's successful requests (METRICS.md, tokens
// disagreement): Checked requests had both a usage count and streamed
// chunks to set it against; Disagree of them differ beyond what the
// documented cases allow, Switched of those by usage below the chunks
// (impossible: a token-bearing chunk carries a token), where the client
// counted its chunks instead (token_source estimated). First names the
// first few, in sending order.
type Tokens struct {
	Checked, Disagree, Switched int
	First                       []TokenDisagreement
}

// TokenDisagreement is one request whose usage and chunks disagree.
type TokenDisagreement struct {
	Seq           int
	ID            string
	Usage, Chunks int
	Allowed       int  // the most usage may exceed the chunks by
	Switched      bool // usage below the chunks: the client's count was used
}

// firstDisagreements bounds the requests a run names.
const firstDisagreements = 5

// Rate is Disagree / Checked; NaN when nothing was checked.
func (t Tokens) Rate() float64 {
	if t.Checked == 0 {
		return math.NaN()
	}
	return float64(t.Disagree) / float64(t.Checked)
}

// add checks one successful request.
func (t *Tokens) add(s *sample.Sample) {
	d, checked := TokensDisagree(s)
	if !checked {
		return
	}
	t.Checked++
	if d == nil {
		return
	}
	t.Disagree++
	if d.Switched {
		t.Switched++
	}
	if len(t.First) < firstDisagreements {
		t.First = append(t.First, *d)
	}
}

// TokensDisagree checks one request's usage.completion_tokens against its
// token-bearing chunks: checked is false when it has no usage or no
// chunks (or failed). A chunk carries at least one token, so usage below
// the chunks always disagrees. Usage may exceed them by the documented
// cases: one token the server generated and did not stream (the EOS or
// stop token), each character the answer holds that spans several
// tokens (byte-level tokens of a multi-byte character, which a server
// sends together: its bytes − 1 more), and reasoning the usage counts but
// the server did not stream. Above that it disagrees — but for answers
// whose text the sample does not keep (tool calls, streamed reasoning, an
// answer cut at the capture limit), where nothing bounds it from above.
func TokensDisagree(s *sample.Sample) (d *TokenDisagreement, checked bool) {
	if !s.OK() || s.UsageTokens == nil || s.Chunks == 0 {
		return nil, false
	}
	usage := *s.UsageTokens
	d = &TokenDisagreement{Seq: s.Seq, ID: s.ID, Usage: usage, Chunks: s.Chunks, Allowed: -1}
	if usage < s.Chunks {
		d.Switched = true
		return d, true
	}
	if len(s.ToolCalls) > 0 || s.Reasoning > 0 || s.ContentCut {
		return nil, true
	}
	d.Allowed = 1 + multiByteExtra(s.Content)
	if s.ReasoningSource == sample.ReasoningUsage {
		d.Allowed += s.ReasoningTokens // counted by usage, never streamed (s.Reasoning is 0)
	}
	if usage-s.Chunks > d.Allowed {
		return d, true
	}
	return nil, true
}

// multiByteExtra is how many more tokens than characters the multi-byte
// characters of text may have been: each of n bytes, n − 1 more.
func multiByteExtra(text string) int {
	extra := 0
	for _, r := range text {
		if n := utf8.RuneLen(r); n > 1 {
			extra += n - 1
		}
	}
	return extra
}

// Detail says what lies behind a tokens_disagree figure: how many, and
// the first requests with both counts.
func (t Tokens) Detail() string {
	if t.Disagree == 0 {
		return ""
	}
	parts := make([]string, len(t.First))
	for i, d := range t.First {
		id := ""
		if d.ID != "" {
			id = " " + d.ID
		}
		if d.Switched {
			parts[i] = fmt.Sprintf("seq %d%s: usage %d < %d chunks, the client's count used", d.Seq, id, d.Usage, d.Chunks)
		} else {
			parts[i] = fmt.Sprintf("seq %d%s: usage %d > %d chunks + %d allowed", d.Seq, id, d.Usage, d.Chunks, d.Allowed)
		}
	}
	more := ""
	if t.Disagree > len(t.First) {
		more = fmt.Sprintf("; %d more", t.Disagree-len(t.First))
	}
	return fmt.Sprintf("%d of %d requests: usage and streamed chunks disagree, %d with the client's own count used; %s%s",
		t.Disagree, t.Checked, t.Switched, strings.Join(parts, "; "), more)
}
