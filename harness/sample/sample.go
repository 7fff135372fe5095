// Package sample holds the data every other part of llmsla passes along:
// one timed request ([Sample]), the load level it ran at ([Level]), and the
// kind of its failure ([ErrorKind]). Samples are written as JSON lines
// ([File], [Read]) as each request ends, so that every statistic, verdict
// and report is a view over them, and files from several runs or machines
// pool into one.
package sample

import (
	"time"
)

// TokenSource says where a sample's output token count came from.
type TokenSource string

const (
	TokensUsage     TokenSource = "usage"     // the server's usage.completion_tokens
	TokensEstimated TokenSource = "estimated" // counted token-bearing chunks
)

// ReasoningSource says where a sample's reasoning token count came from.
type ReasoningSource string

const (
	// ReasoningUsage: usage.completion_tokens_details.reasoning_tokens.
	ReasoningUsage ReasoningSource = "usage"
	// ReasoningChunks: the reasoning chunks streamed, counted.
	ReasoningChunks ReasoningSource = "chunks"
	// ReasoningInferred: usage.total_tokens − prompt_tokens −
	// completion_tokens, for a server that counts hidden reasoning in the
	// total alone (Gemini); those tokens are added to the output tokens.
	ReasoningInferred ReasoningSource = "inferred"
)

// Sample is one timed request: everything METRICS.md defines per request.
// Durations are measured from t0 on the monotonic clock; a zero TTFT means no
// token arrived. Samples are plain data: they are written as JSONL, merged
// across runs and shards, and every report is computed from them.
type Sample struct {
	Scenario string `json:"scenario"`
	Endpoint string `json:"endpoint"`
	Model    string `json:"model,omitempty"`
	// Level is the load the request ran under, as key=value labels:
	// "concurrency=5", "rate=10", "prompt_tokens=1024/concurrency=1".
	Level Level  `json:"level,omitempty"`
	Run   string `json:"run,omitempty"`  // which run: runs pooled in one file keep their own time windows
	Seq   int    `json:"seq"`            // order of sending within the run
	ID    string `json:"id,omitempty"`   // the response id, to find it in server logs
	Case  string `json:"case,omitempty"` // fixture case id
	// FixtureCases is the number of cases in the scenario's fixture, so that
	// coverage (distinct cases asked / cases) is computed from samples alone.
	FixtureCases int `json:"fixture_cases,omitempty"`
	// Ceiling is the measured requests the run could have sent when it may
	// stop once its objectives are decided (stop: decided), so that a
	// verdict says what stopping saved; 0 for a run that sends its count.
	Ceiling int `json:"ceiling,omitempty"`
	// Reps is, for a run that is one of a level's repetitions deciding
	// together (a benchmark's -count runs under stop: decided), how many
	// the level could have run; Rep is which of them this run is, from 1.
	// Once the earlier runs decide, the later ones send nothing, so that
	// the level's ceiling is Reps runs of Ceiling. 0: the run decides
	// alone.
	Reps int `json:"reps,omitempty"`
	Rep  int `json:"rep,omitempty"`
	// Shard is "I/N" when the run was sent by N machines together, this
	// sample by the I-th; StartLag is how late that machine started after
	// the start they agreed on (-start-at), or with a slot per run
	// (-level-every) how late this run started after its slot.
	Shard    string        `json:"shard,omitempty"`
	StartLag time.Duration `json:"start_lag_ns,omitempty"`

	Cold   bool `json:"cold,omitempty"` // first request to the endpoint in the run
	Warmup bool `json:"warmup,omitempty"`

	// Start is t0. In memory it carries the monotonic reading; written out
	// it is wall-clock time, good for windows within one run.
	Start  time.Time     `json:"t0"`
	Offset time.Duration `json:"offset_ns"` // t0 − start of the run
	// Sched is tsched − start of the run: when an open loop's schedule
	// said the request should go, always > 0 there; zero in closed loop,
	// where a request is due when it is sent.
	Sched time.Duration `json:"sched_ns,omitempty"`
	// Lag is t0 − tsched, the time the request went out after its
	// scheduled instant (open loop); zero in closed loop.
	Lag time.Duration `json:"lag_ns,omitempty"`
	// Slice is the time slice of the run the request started in (its
	// offset divided by the slice length, a minute unless configured), so
	// that a soak's drift is read from the samples alone.
	Slice int `json:"slice,omitempty"`

	DNS     time.Duration `json:"dns_ns,omitempty"`
	Connect time.Duration `json:"connect_ns,omitempty"`
	TLS     time.Duration `json:"tls_ns,omitempty"`
	Reused  bool          `json:"reused"`

	TTFB  time.Duration `json:"ttfb_ns,omitempty"`
	TTFT  time.Duration `json:"ttft_ns,omitempty"`
	TTFA  time.Duration `json:"ttfa_ns,omitempty"`
	Total time.Duration `json:"total_ns"`

	OutputTokens int `json:"output_tokens"`
	// ReasoningTokens are those of OutputTokens that were reasoning: the
	// server's usage.completion_tokens_details.reasoning_tokens, else what
	// its total counts beyond prompt and completion, else the reasoning
	// chunks counted; ReasoningSource says which.
	ReasoningTokens int             `json:"reasoning_tokens,omitempty"`
	ReasoningSource ReasoningSource `json:"reasoning_source,omitempty"`
	PromptTokens    int             `json:"prompt_tokens,omitempty"`
	// CachedTokens are the prompt tokens the server says it served from its
	// prefix cache (usage.prompt_tokens_details.cached_tokens, DeepSeek's
	// prompt_cache_hit_tokens, llama.cpp's timings.cache_n); nil when the
	// server does not say, which is unknown, not 0.
	CachedTokens *int        `json:"cached_tokens,omitempty"`
	TokenSource  TokenSource `json:"token_source,omitempty"`
	Chunks       int         `json:"chunks"` // token-bearing chunks
	// UsageTokens is usage.completion_tokens as the server sent it, nil
	// when it sent no usage: beside Chunks, what tokens_disagree checks,
	// and what OutputTokens was before the client switched to its own
	// count (TokenSource estimated).
	UsageTokens *int `json:"usage_tokens,omitempty"`
	// ITL counts the inter-token latencies, every gap between consecutive
	// token-bearing chunks, in a histogram of bounded size (see Hist for
	// its precision); nil with fewer than two chunks. Files written before
	// it kept every gap in "gaps_ns"; Read turns those into an ITL.
	ITL *Hist `json:"itl,omitempty"`

	// ToolCalls are the calls the answer made, assembled from the streamed
	// deltas (ToolCallsCut: calls beyond the client's bound were dropped).
	// TTFTool is t0 → the first event with a tool-call delta that brought
	// a name or argument bytes; ToolDone is t0 → the chunk with
	// finish_reason tool_calls, else the end of the stream.
	ToolCalls    []ToolCall    `json:"tool_calls,omitempty"`
	ToolCallsCut bool          `json:"tool_calls_cut,omitempty"`
	TTFTool      time.Duration `json:"ttftool_ns,omitempty"`
	ToolDone     time.Duration `json:"tool_done_ns,omitempty"`

	// ResponseModel and SystemFingerprint are what the response said
	// answered (its chunks' model and system_fingerprint), which need not
	// be the model asked: provenance, so that a swap behind a name shows.
	ResponseModel     string `json:"response_model,omitempty"`
	SystemFingerprint string `json:"system_fingerprint,omitempty"`

	Finish     string    `json:"finish"` // finish_reason, or the error kind
	Status     int       `json:"status,omitempty"`
	ErrKind    ErrorKind `json:"error_kind,omitempty"`
	Err        string    `json:"error,omitempty"`
	RetryAfter string    `json:"retry_after,omitempty"`
	// RateLimit holds the x-ratelimit-* headers of a 429 (remaining,
	// limit, reset), lower-cased: how far over its quota the run went.
	RateLimit map[string]string `json:"ratelimit,omitempty"`

	// Content is the answer text (reasoning excluded), kept for quality
	// checks; ContentCut says it was cut at the capture limit.
	Content    string `json:"content,omitempty"`
	ContentCut bool   `json:"content_cut,omitempty"`
	Reasoning  int    `json:"reasoning_bytes,omitempty"`
	// Inputs are the texts an embeddings request carried (0 for the
	// other APIs): those of a successful one were embedded, what the
	// level's inputs/s counts.
	Inputs int `json:"inputs,omitempty"`

	Quality *Quality `json:"quality,omitempty"`
	// QualityOff: the answer was not judged (quality: off, llmsla bench
	// -latency-only), so that a verdict over the samples says so rather
	// than read a missing check as a fixture without one.
	QualityOff bool `json:"quality_off,omitempty"`

	// Session is the id of the agent loop or conversation the request was
	// a part of, unique across runs and machines. A step of an agent loop
	// has Step, its index in the loop from 1: the loop's figures
	// (agent_total, its step count) are read from its steps. A loop's first
	// step has the Seq its prompt would have had alone; its later steps are
	// numbered after the run's requests, so that (Run, Seq) stays one
	// request. A turn of a conversation has Turn, its index from 1, and
	// Turns, how many turns the conversation has, so that one that lacks
	// its last turns (cut by the run's count, or ended by a failed turn) is
	// told apart from a complete one; Think is the pause planned before
	// this turn, from the end of the previous turn's answer.
	Session string        `json:"session,omitempty"`
	Step    int           `json:"step,omitempty"`
	Turn    int           `json:"turn,omitempty"`
	Turns   int           `json:"turns,omitempty"`
	Think   time.Duration `json:"think_ns,omitempty"`
	// Cache is the scenario's cache policy the request was sent under
	// (cache: natural|bust|warm); "" in files written before it, natural.
	Cache CachePolicy `json:"cache,omitempty"`
	// Asked is what a trace's row asked of the request (Asked), nil for
	// a request no row made.
	Asked *Asked `json:"asked,omitempty"`
}

// OK reports whether the request succeeded.
func (s *Sample) OK() bool { return s.ErrKind == KindNone }

// Measured reports whether the sample counts in a run's statistics: not the
// cold first request, not warm-up.
func (s *Sample) Measured() bool { return !s.Cold && !s.Warmup }

// Embeds reports whether the sample is of an embeddings request (it
// carried inputs, failed or not), not of a generating API's.
func (s *Sample) Embeds() bool { return s.Inputs > 0 }

// TPOT is (total − ttft) / (output_tokens − 1): the time per output token
// over every token streamed from the first token of any kind, reasoning
// included, as ttft counts it. Reasoning the server counted but did not
// stream (OpenAI's o-series send none of it) came before the first token,
// outside that span, and is left out of the count. ok is false when it is
// undefined (one token or fewer, or a failed request), never 0.
func (s *Sample) TPOT() (tpot time.Duration, ok bool) {
	n := s.OutputTokens
	if s.Reasoning == 0 {
		n -= s.ReasoningTokens // reasoning not streamed
	}
	return s.perToken(s.Total-s.TTFT, s.TTFT, n)
}

// AnswerTPOT is the same over the answer alone: (total − ttfa) /
// (output_tokens − reasoning_tokens − 1). For a model that streams no
// reasoning it equals TPOT; for one that does, it is the pace of the
// answer a reader sees, once it has begun.
func (s *Sample) AnswerTPOT() (tpot time.Duration, ok bool) {
	return s.perToken(s.Total-s.TTFA, s.TTFA, s.OutputTokens-s.ReasoningTokens)
}

func (s *Sample) perToken(span, first time.Duration, tokens int) (time.Duration, bool) {
	if !s.OK() || tokens <= 1 || first == 0 {
		return 0, false
	}
	return span / time.Duration(tokens-1), true
}

// Scheduled reports whether the request had a scheduled instant (open
// loop), so that its lag is a measurement rather than a zero by default.
func (s *Sample) Scheduled() bool { return s.Sched > 0 }

// End is the instant the request ended (t0 + total).
func (s *Sample) End() time.Time { return s.Start.Add(s.Total) }
