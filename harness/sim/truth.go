package sim

import "time"

// Truth is what the simulator did for one request, timed on the same
// monotonic clock as an in-process client. Each instant is taken right after
// the corresponding write and Flush returned, so a client's reading of the
// same event can only be later, never earlier.
type Truth struct {
	Index int
	ID    string // also the chunks' "id" and the X-Request-Id header: "chatcmpl-sim-<Index>"

	Received   time.Time // handler entry
	Headers    time.Time // after WriteHeader+Flush (zero for connection_reset and timeout_headers cut short)
	FirstToken time.Time // first token-bearing chunk (reasoning or content), after its write
	// FirstReady is the first token's chunk ready, before its write: what
	// a server's own TTFT histogram times (vLLM observes it as the token
	// is made), never after the client has it.
	FirstReady  time.Time
	FirstAnswer time.Time // first content or tool-call chunk
	Last        time.Time // after the last byte the handler wrote ([DONE], or the fault's last write)

	// PromptTokens counts the words of every message, history included
	// (see promptTokens); CachedTokens of them were found in the prefix
	// cache (Config.CacheBlocks) and PrefillTokens, the rest, were
	// charged prefill. Cache says the cache was on, and so that usage
	// carried prompt_tokens_details.cached_tokens.
	PromptTokens  int
	CachedTokens  int
	PrefillTokens int
	Cache         bool
	// OutputTokens equals the usage.completion_tokens sent, less
	// UsageOff: one per content or reasoning chunk, and a tool-call
	// chunk's tokens (a whole call carries several in one chunk: see
	// ToolChunks). UsageOff is what usage was made to be off by
	// (Config.UsageOffRate), 0 when it was true.
	OutputTokens    int
	UsageOff        int
	ReasoningTokens int           // of OutputTokens, those sent as reasoning (they all come before the answer)
	TTFTDelay       time.Duration // planned time to first token, queue wait excluded
	// QueueWait is the time spent waiting for a generation slot (Config.Slots),
	// until the grant or until the client left; 0 when a slot was free. The
	// first token is due QueueWait + TTFTDelay after Received.
	QueueWait time.Duration
	// SlowFactor is the drift factor applied to TTFT and prefill:
	// Config.SlowFactor when the request arrived after Config.SlowAfter,
	// else 1. TTFTDelay includes it.
	SlowFactor float64

	Status int    // HTTP status sent; 0 if none (connection_reset, client gone first)
	Stream bool   // stream: true in the request
	Finish string // finish_reason sent: "stop", "length", or "" when none was
	Fault  string // injected fault kind, "" if none
	Wrong  bool
	// InvalidJSON: the answer was broken on purpose (see Config.InvalidJSONRate).
	InvalidJSON bool
	Answer      string // content text sent, reasoning excluded

	// Tool calls (tools.go). ToolStep is the agent step answered, from 1
	// (the tool-result turns after the last user message, plus one), 0
	// for a request that offered no tools. ToolCalls are the calls sent,
	// as sent: ids, names, and arguments wrong (ToolWrong) or broken
	// (ToolBadJSON) on purpose, or cut by max_tokens or a fault; nil for a
	// text answer. FirstTool is the first chunk with name or argument
	// bytes, ToolDone the finish chunk (finish_reason "tool_calls" or
	// "length"), zero when none was sent. ToolChunks counts the chunks
	// that carried name or argument bytes, not vLLM's empty repeat; a
	// non-stream answer has none.
	ToolStep    int
	ToolCalls   []ToolCall
	ToolWrong   bool
	ToolBadJSON bool
	FirstTool   time.Time
	ToolDone    time.Time
	ToolChunks  int

	// Judge is what the simulator's judge decided (Config.Judge), nil for
	// a request that was no judgment.
	Judge *JudgeTruth

	Model string
	// Served is the model the response named as the one that answered
	// (Model, or the spec's swap=).
	Served    string
	MaxTokens int // max_completion_tokens, else max_tokens, as received
	// MinTokens and IgnoreEOS are vLLM's parameters of a fixed answer
	// length, as received: the answer goes on (lorem words) to
	// min_tokens, or with ignore_eos to max_tokens.
	MinTokens   int
	IgnoreEOS   bool
	Temperature *float64 // nil when absent, so that 0 is told apart
	Seed        *int

	// An embeddings request's (embeddings.go): how many inputs, the
	// vectors' dimension, and the cosine similarity of the first input's
	// vector with each other's, rounded to 1e-6 as the client rounds it.
	Inputs    int
	Dimension int
	Cosine    []float64

	Done bool // the handler has returned; a record is final only then
}

// TPOT is METRICS.md's tpot over every token, reasoning included, as the
// server sent them: (Last − FirstToken) / (OutputTokens − 1). It is
// undefined (ok false) with fewer than two tokens, never 0.
func (t Truth) TPOT() (tpot time.Duration, ok bool) {
	return perToken(t.Last.Sub(t.FirstToken), t.OutputTokens)
}

// AnswerTPOT is the same over the answer alone, from the first answer
// token: (Last − FirstAnswer) / (OutputTokens − ReasoningTokens − 1). For
// a reasoning model the two differ: a client that times the answer from
// its first reasoning token, or divides by every token, is caught here.
func (t Truth) AnswerTPOT() (tpot time.Duration, ok bool) {
	return perToken(t.Last.Sub(t.FirstAnswer), t.OutputTokens-t.ReasoningTokens)
}

func perToken(d time.Duration, tokens int) (time.Duration, bool) {
	if tokens <= 1 {
		return 0, false
	}
	return d / time.Duration(tokens-1), true
}
