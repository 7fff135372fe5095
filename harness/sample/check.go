package sample

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/escape"
)

// The bounds of what one request can measure, which Check holds a sample
// to: a sample beyond them was not measured (a forged or corrupt file),
// and the figures over it would be nonsense or overflow.
const (
	// MaxDuration bounds each phase of a request (ttft, total, …): a day,
	// beyond any request's timeout.
	MaxDuration = 24 * time.Hour
	// MaxOffset bounds when in its run a request started (offset_ns,
	// sched_ns) and how late a shard or a run started (start_lag_ns): a
	// year, beyond any soak.
	MaxOffset = 366 * 24 * time.Hour
	// MaxTokens bounds each token count of a request (output, reasoning
	// and prompt tokens, chunks), 2^31: sums over any number of requests
	// stay exact, and tokens per second cannot overflow.
	MaxTokens = 1 << 31
)

// firstT0 and lastT0 bound a sample's wall-clock start: before llmsla, or
// two centuries on, is a clock or a file gone wrong.
var firstT0, lastT0 = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)

// Check reports what makes s a sample no request can have measured,
// naming the key (as in the samples file) and what is allowed, or nil:
// durations negative or beyond MaxDuration, ttft after ttfa or total, a
// token count beyond MaxTokens, an ITL histogram that is not the gaps
// between its chunks, an error kind that is none of Kinds, a shard that
// is not I/N, or a name (scenario, endpoint, model, level, run, case)
// that holds a control character.
// Read and Scanner check every line with it.
func (s *Sample) Check() error {
	for _, c := range []func() error{s.checkNames, s.checkTimes, s.checkOrder, s.checkCounts, s.checkITL, s.checkKinds, s.checkTools, s.checkSteps, s.checkSession, s.checkCache, s.checkJudge, s.checkAsked} {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// checkNames: the names a sample is grouped and printed by are printable
// lines, and a case id is a file name (its golden file).
func (s *Sample) checkNames() error {
	names := []struct {
		key, val string
		check    func(string) error
	}{
		{"scenario", s.Scenario, escape.CheckLine}, {"endpoint", s.Endpoint, escape.CheckLine},
		{"model", s.Model, escape.CheckLine}, {"level", string(s.Level), escape.CheckLine},
		{"run", s.Run, escape.CheckLine}, {"case", s.Case, escape.CheckFileName},
		{"session", s.Session, escape.CheckLine},
	}
	for _, n := range names {
		if n.val == "" {
			continue
		}
		if err := n.check(n.val); err != nil {
			return fmt.Errorf("%s: %w", n.key, err)
		}
	}
	if s.Shard != "" {
		if _, _, err := ParseShard(s.Shard); err != nil {
			return fmt.Errorf("shard: %w", err)
		}
	}
	return nil
}

// checkTimes: every duration within its bound, t0 on a sane clock.
func (s *Sample) checkTimes() error {
	for _, d := range []struct {
		key string
		v   time.Duration
		max time.Duration
	}{
		{"dns_ns", s.DNS, MaxDuration}, {"connect_ns", s.Connect, MaxDuration}, {"tls_ns", s.TLS, MaxDuration},
		{"ttfb_ns", s.TTFB, MaxDuration}, {"ttft_ns", s.TTFT, MaxDuration}, {"ttfa_ns", s.TTFA, MaxDuration},
		{"total_ns", s.Total, MaxDuration}, {"lag_ns", s.Lag, MaxDuration},
		{"ttftool_ns", s.TTFTool, MaxDuration}, {"tool_done_ns", s.ToolDone, MaxDuration},
		{"offset_ns", s.Offset, MaxOffset}, {"sched_ns", s.Sched, MaxOffset}, {"start_lag_ns", s.StartLag, MaxOffset},
	} {
		switch {
		case d.v < 0:
			return fmt.Errorf("%s: %d ns is a negative time, which no request measures (allowed: 0 to %s)", d.key, int64(d.v), d.max)
		case d.v > d.max:
			return fmt.Errorf("%s: %s is longer than any request or run (allowed: 0 to %s)", d.key, d.v, d.max)
		}
	}
	if s.Start.Before(firstT0) || !s.Start.Before(lastT0) {
		return fmt.Errorf("t0: %s is not when a request was sent (allowed: years 2000 to 2199)", s.Start.Format(time.RFC3339))
	}
	return nil
}

// checkOrder: the instants of a request come in the order they happen —
// headers, the first token of any kind, the first answer token, the end.
func (s *Sample) checkOrder() error {
	type at struct {
		key string
		v   time.Duration
	}
	// Each set instant is no later than those after it; unset ones (0)
	// are skipped, but the end is always set.
	order := []at{{"ttfb_ns", s.TTFB}, {"ttft_ns", s.TTFT}, {"ttfa_ns", s.TTFA}, {"total_ns", s.Total}}
	for i, a := range order {
		for _, b := range order[i+1:] {
			if a.v > 0 && (b.v > 0 || b.key == "total_ns") && a.v > b.v {
				return fmt.Errorf("%s: %s is after %s %s (allowed: ttfb ≤ ttft ≤ ttfa ≤ total, each when set)", a.key, a.v, b.key, b.v)
			}
		}
	}
	for _, p := range []at{{"dns_ns", s.DNS}, {"connect_ns", s.Connect}, {"tls_ns", s.TLS}} {
		if p.v > s.Total {
			return fmt.Errorf("%s: %s is longer than the whole request (total_ns %s)", p.key, p.v, s.Total)
		}
	}
	if s.TTFTool > 0 && (s.TTFTool > s.Total || (s.ToolDone > 0 && s.TTFTool > s.ToolDone)) {
		return fmt.Errorf("ttftool_ns: %s is after tool_done_ns %s or total_ns %s (allowed: ttftool ≤ tool_done ≤ total)", s.TTFTool, s.ToolDone, s.Total)
	}
	if s.ToolDone > s.Total {
		return fmt.Errorf("tool_done_ns: %s is after total_ns %s (allowed: tool_done ≤ total)", s.ToolDone, s.Total)
	}
	if s.TTFA > 0 && s.TTFT == 0 {
		return fmt.Errorf("ttft_ns: not set, but ttfa_ns is %s (an answer token is a token: allowed: ttft ≤ ttfa)", s.TTFA)
	}
	return nil
}

// checkCounts: token counts within MaxTokens, the other counts in range.
func (s *Sample) checkCounts() error {
	for _, c := range []struct {
		key string
		v   int
	}{
		{"output_tokens", s.OutputTokens}, {"reasoning_tokens", s.ReasoningTokens}, {"prompt_tokens", s.PromptTokens},
		{"chunks", s.Chunks}, {"fixture_cases", s.FixtureCases}, {"ceiling", s.Ceiling}, {"reps", s.Reps}, {"rep", s.Rep}, {"reasoning_bytes", s.Reasoning},
		{"seq", s.Seq}, {"slice", s.Slice},
	} {
		if c.v < 0 || c.v > MaxTokens {
			return fmt.Errorf("%s: %d is out of range (allowed: 0 to 2^31)", c.key, c.v)
		}
	}
	if (s.Reps > 0) != (s.Rep > 0) || s.Rep > s.Reps || (s.Reps > 0 && s.Ceiling == 0) {
		return fmt.Errorf("rep: %d of reps %d, ceiling %d (allowed: 1 ≤ rep ≤ reps, both set or neither, and a ceiling beside them)", s.Rep, s.Reps, s.Ceiling)
	}
	if u := s.UsageTokens; u != nil && (*u < 0 || *u > MaxTokens) {
		return fmt.Errorf("usage_tokens: %d is out of range (allowed: 0 to 2^31)", *u)
	}
	// Reasoning tokens beyond the output are not refused: a server that
	// counts them apart from completion_tokens, hidden, writes them so.
	if s.Status != 0 && (s.Status < 100 || s.Status > 599) {
		return fmt.Errorf("status: %d is not an HTTP status (allowed: 100 to 599, or none)", s.Status)
	}
	return nil
}

// checkITL: the histogram of inter-token gaps counts one gap between each
// two chunks, and its gaps fit in the request.
func (s *Sample) checkITL() error {
	h := s.ITL
	if h == nil {
		return nil
	}
	switch {
	case h.N != int64(s.Chunks)-1:
		return fmt.Errorf("itl: %d gaps for %d chunks (allowed: chunks − 1, a gap between each two)", h.N, s.Chunks)
	case h.N > 0 && !(0 <= h.Min && h.Min <= h.Max && h.Max <= h.Sum && h.Sum <= s.Total):
		return fmt.Errorf("itl: min %s, max %s, sum %s in a request of %s (allowed: 0 ≤ min ≤ max ≤ sum ≤ total_ns)", h.Min, h.Max, h.Sum, s.Total)
	}
	return nil
}

// checkKinds: an error kind is one llmsla has, and so is a token source.
func (s *Sample) checkKinds() error {
	if s.ErrKind != KindNone && !slices.Contains(Kinds, s.ErrKind) {
		names := make([]string, len(Kinds))
		for i, k := range Kinds {
			names[i] = string(k)
		}
		return fmt.Errorf("error_kind: %q is not an error kind (allowed: %s)", s.ErrKind, strings.Join(names, ", "))
	}
	if s.TokenSource != "" && s.TokenSource != TokensUsage && s.TokenSource != TokensEstimated {
		return fmt.Errorf("token_source: %q (allowed: usage, estimated)", s.TokenSource)
	}
	switch s.ReasoningSource {
	case "", ReasoningUsage, ReasoningChunks, ReasoningInferred:
	default:
		return fmt.Errorf("reasoning_source: %q (allowed: usage, chunks, inferred)", s.ReasoningSource)
	}
	return nil
}

// checkTools: the tool calls and cached tokens are what a response can
// hold: at most MaxToolCalls calls, names and ids of at most MaxToolName
// bytes, on one line; cached tokens within the prompt.
func (s *Sample) checkTools() error {
	if len(s.ToolCalls) > MaxToolCalls {
		return fmt.Errorf("tool_calls: %d calls (allowed: at most %d)", len(s.ToolCalls), MaxToolCalls)
	}
	for i, c := range s.ToolCalls {
		for _, f := range []struct{ key, v string }{{"name", c.Name}, {"id", c.ID}} {
			if len(f.v) > MaxToolName {
				return fmt.Errorf("tool_calls[%d].%s: %d bytes (allowed: at most %d)", i, f.key, len(f.v), MaxToolName)
			}
			if f.v != "" {
				if err := escape.CheckLine(f.v); err != nil {
					return fmt.Errorf("tool_calls[%d].%s: %w", i, f.key, err)
				}
			}
		}
	}
	if c := s.CachedTokens; c != nil && (*c < 0 || (s.PromptTokens > 0 && *c > s.PromptTokens)) {
		return fmt.Errorf("cached_tokens: %d of %d prompt tokens (allowed: 0 to prompt_tokens)", *c, s.PromptTokens)
	}
	return nil
}

// ParseShard reads a shard "I/N": the I-th of N machines sending a run
// together, 0 ≤ I < N.
func ParseShard(sh string) (i, n int, err error) {
	a, b, _ := strings.Cut(sh, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q is not a shard: want I/N with 0 ≤ I < N", sh)
	}
	return i, n, nil
}

// The bounds of a conversation's record: turns a conversation may have,
// and the length of its id (a run's id and the conversation's number).
const (
	MaxTurns     = 1000
	MaxSessionID = 256
)

// checkSession: a turn belongs to a session, comes within its
// conversation's turns, and only a later turn has a think time before it.
func (s *Sample) checkSession() error {
	switch {
	case len(s.Session) > MaxSessionID:
		return fmt.Errorf("session: %d bytes (allowed: at most %d)", len(s.Session), MaxSessionID)
	case s.Turn < 0 || s.Turn > MaxTurns || s.Turns < 0 || s.Turns > MaxTurns:
		return fmt.Errorf("turn: %d of %d turns (allowed: 1 to %d)", s.Turn, s.Turns, MaxTurns)
	case s.Turn > 0 && s.Session == "":
		return fmt.Errorf("turn: %d without a session (allowed: a turn of a conversation, which has an id)", s.Turn)
	case s.Turn > s.Turns || (s.Turns > 0 && s.Turn == 0):
		return fmt.Errorf("turn: %d of %d turns (allowed: 1 to turns)", s.Turn, s.Turns)
	case s.Think < 0 || s.Think > MaxDuration:
		return fmt.Errorf("think_ns: %d ns (allowed: 0 to %s)", int64(s.Think), MaxDuration)
	case s.Think > 0 && s.Turn < 2:
		return fmt.Errorf("think_ns: %s before turn %d (allowed: only before a turn after the first)", s.Think, s.Turn)
	case s.Turn > 0 && s.Step > 0:
		return fmt.Errorf("turn: %d and step: %d (allowed: a turn of a conversation or a step of an agent loop, not both)", s.Turn, s.Step)
	}
	return nil
}
