package sim

import (
	"errors"
	"fmt"
	"math"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Config is the simulated endpoint: its latency model, its SSE framing quirks,
// the faults it injects and the answers it gives. The zero value is a valid,
// instant, fault-free endpoint with no output; Default is the usual start.
type Config struct {
	// Latency model. The time to first token is
	// (TTFT + PrefillPerToken*prefilled tokens) * Scale * jitter * slowdown,
	// counted from the handler's entry; each following token comes TPOT *
	// jitter * slowdown after the one before. The prefilled tokens are the
	// prompt's, less those found in the prefix cache (CacheBlocks).
	TTFT            time.Duration
	PrefillPerToken time.Duration // prompt tokens = whitespace-separated words of all messages (see promptWords)
	TTFTJitter      float64       // relative sd of a mean-1 lognormal factor; 0 = none
	TPOT            time.Duration
	TPOTJitter      float64
	OutputTokens    int     // answer length in tokens (lorem words) when Answer gives none; max_tokens caps it
	Slowdown        float64 // every delay is multiplied by 1+Slowdown*(inflight-1)
	Scale           float64 // multiplies TTFT and prefill, to simulate a regression; 0 means 1

	// Capacity. At most Slots requests generate at once (0 = unlimited);
	// the others wait in arrival order. A streamed response sends its
	// headers (and role chunk) before the wait, as vLLM and Ollama do, so
	// the wait is part of time to first token: the first token comes
	// QueueWait + TTFTDelay after arrival (see Truth). A slot is held from
	// the start of generation to the end of the response, or until the
	// client leaves; status faults never take one. See ServiceTime and
	// Capacity for the arithmetic.
	Slots int

	// Drift, for soak tests: a request arriving more than SlowAfter after
	// the server's first request (the first since New or Reset) has its
	// TTFT and prefill multiplied by SlowFactor (recorded in
	// Truth.SlowFactor). SlowFactor 0 turns drift off.
	SlowAfter  time.Duration
	SlowFactor float64

	// Framing.
	RoleChunk       bool          // a first chunk with only delta.role, sent right after the headers
	EmptyContent    bool          // a chunk with content "" right after the headers (and the role chunk)
	KeepAlive       time.Duration // ": ping" comments while waiting longer than this; 0 = never
	NoUsage         bool          // no usage chunk even when stream_options.include_usage is set
	CRLF            bool          // \r\n line endings
	ReasoningTokens int           // delta.reasoning_content tokens before the answer
	NoDone          bool          // end after finish_reason without "data: [DONE]"
	// MultiLine spreads the JSON of every chunk event over several "data:"
	// lines, cut after the commas between top-level members. The SSE spec
	// has a reader join them with "\n", which JSON takes as whitespace: a
	// correct client reads a normal, successful stream; one that parses
	// each line alone reports protocol errors that are its own.
	MultiLine bool
	// Echo makes the answer the request's secrets as sent (see echoText):
	// "echo key=<bearer token> header=<X-… value> query=<value>", cut into
	// tokens like any answer, so a secret is split across chunks. A
	// correct client never shows those values in any report, log, sample
	// file or error, whole or in part. Echo wins over Answer, Wrong and
	// InvalidJSON; max_tokens still caps it like any answer.
	Echo bool

	// Faults maps a fault kind (see FaultKinds) to its probability. The kind
	// of request i depends only on Seed and i, so a run repeats exactly.
	Faults map[string]float64

	// Quality. Answer gives the answer text; nil, or "" for a request it
	// has no answer to, means OutputTokens lorem words. Wrong gives a
	// deliberately wrong one (nil or "" = "I don't know"). WrongRate and
	// InvalidJSONRate are probabilities decided from Seed and the index like
	// faults; an invalid-JSON answer loses its last '}' or, with none, its
	// second half.
	Answer          func(req *openai.ChatCompletionRequest) string
	Wrong           func(req *openai.ChatCompletionRequest) string
	WrongRate       float64
	InvalidJSONRate float64

	// Tool calls (tools.go). A request that offers tools (and whose
	// tool_choice is not "none") is answered with the calls Tools gives
	// for it, framed as ToolFraming says; nil calls mean a text answer
	// (an agent loop's final answer). With no Tools hook the model calls
	// the first tool offered (or the one tool_choice names) with the
	// arguments its schema requires, once, and then answers with text.
	// ToolWrongRate and ToolBadJSONRate are the probabilities, decided
	// from Seed and the index, that a call's arguments are wrong (a value
	// changed, still valid JSON of the same type) or not JSON at all.
	Tools           func(req *openai.ChatCompletionRequest) []ToolCall
	ToolFraming     string // one of ToolFramings; "" = ToolsOpenAI
	ToolWrongRate   float64
	ToolBadJSONRate float64

	// CacheBlocks turns on a prefix cache (cache.go) of that many blocks
	// of CacheBlock prompt tokens; 0 = none. Cached tokens cost no
	// prefill and are reported in usage.prompt_tokens_details.
	CacheBlocks int

	// Metrics faults (metrics.go), for scrapers under test. /metrics is
	// always served; these make it lie. MetricsLie multiplies every TTFT
	// the histogram observes (0 or 1: the truth). MetricsForeign counts
	// that share of extra requests, copies of real ones no client sent.
	// From the scrape after the MetricsVanish-th on, the family
	// MetricsVanishFamily is left out (0: never). MetricsHang is the
	// probability that a scrape hangs, sending nothing until the client
	// leaves. MetricsSeries adds that many series of one gauge family.
	MetricsLie          float64
	MetricsForeign      float64
	MetricsVanish       int
	MetricsVanishFamily string // "" = MetricTTFT
	MetricsHang         float64
	MetricsSeries       int

	// UsageOffRate is the probability, decided from Seed and the index,
	// that a request's usage.completion_tokens (and total_tokens) is off
	// by UsageOffTokens from the tokens it streamed (Truth.UsageOff), so
	// that a client's check of usage against the stream can be tested.
	UsageOffTokens int
	UsageOffRate   float64

	// SwapAfter and SwapModel: from the request of index SwapAfter on,
	// responses name SwapModel as the model that answered (Truth.Served),
	// as a deploy that changes the served model mid-run does.
	SwapAfter int
	SwapModel string

	// Root is the served model's path or repository, as vLLM's /v1/models
	// says it ("root"), and so the model's digest to a provenance probe:
	// two simulators of different Root are different models. GET /version
	// answers vLLM's {"version"} with "llmsla-sim".
	Root string

	// The simulator as a judge (judge.go): with Judge, a request whose
	// prompt is a judge's is answered with a verdict scored by the
	// reference's key words, flipped with probability JudgeNoise, biased
	// by JudgeLengthBias toward long answers, and prose instead of JSON
	// with probability JudgeProse (Truth.Judge).
	Judge           bool
	JudgeNoise      float64
	JudgeLengthBias float64
	JudgeProse      float64

	Seed int64
}

// Default is fast but realistic, so that suites run in well under a second
// per scenario while still exercising jitter and the role chunk.
func Default() Config {
	return Config{
		TTFT:         20 * time.Millisecond,
		TPOT:         2 * time.Millisecond,
		TTFTJitter:   0.1,
		TPOTJitter:   0.1,
		OutputTokens: 24,
		RoleChunk:    true,
		Seed:         1,
	}
}

// The fault kinds. Most share their name with the harness error kind a
// client should report for them; the variants (server_error_json,
// protocol_*, midstream_error_*, truncated_abort) are different wire shapes
// of the same kind, because clients tend to parse each shape differently.
const (
	FaultTimeoutHeaders       = "timeout_headers"        // no headers for 30 s or until the client leaves
	FaultTimeoutIdle          = "timeout_idle"           // a few tokens, then nothing until the client leaves
	FaultTimeoutTotal         = "timeout_total"          // tokens every TPOT (at least 1 ms) until the client leaves
	FaultConnectionReset      = "connection_reset"       // TCP RST before any response
	FaultRateLimited          = "rate_limited"           // 429 with Retry-After and x-ratelimit-* headers
	FaultServerError          = "server_error"           // 503 with an HTML body
	FaultServerErrorJSON      = "server_error_json"      // 500 with an OpenAI error body
	FaultClientError          = "client_error"           // 400 with an OpenAI error body
	FaultAuth                 = "auth"                   // 401 with an OpenAI error body
	FaultProtocolContentType  = "protocol_content_type"  // 200 application/json to a stream request
	FaultProtocolBadChunk     = "protocol_bad_chunk"     // a few tokens, then "data: {not json"
	FaultProtocolLongLine     = "protocol_long_line"     // a 2 MiB data line with no end, held open
	FaultMidstreamError       = "midstream_error"        // a few tokens, then data: {"error":{...}}
	FaultMidstreamErrorSpaced = "midstream_error_spaced" // the same, as data: { "error": {...}}
	FaultMidstreamErrorVLLM   = "midstream_error_vllm"   // the same, in vLLM's {"object":"error",...} shape
	FaultTruncated            = "truncated"              // a few tokens, then a clean end of the HTTP body
	FaultTruncatedAbort       = "truncated_abort"        // a few tokens, then the connection is dropped mid-body

	// Stream shapes that hostile or broken endpoints produce; each comment
	// says what a correct client reports.

	// A few tokens, then an event named "error" ("event: error" before
	// data: {"error":{...}}), as some servers and proxies name it:
	// midstream_error, with the message, whether the client reads the
	// event name or only the data.
	FaultMidstreamErrorEvent = "midstream_error_event"
	// A 200 text/event-stream whose body is gzip (Content-Encoding: gzip),
	// flushed per event, though the request did not ask for it: protocol,
	// saying the body is gzip-encoded unasked. (Go's Transport asks for
	// gzip by itself unless DisableCompression is set, and then decodes it
	// silently; a client that measures streams must not let it.)
	FaultGzipUnasked = "gzip_unasked"
	// A few tokens, then half of the next data line, cut inside the JSON,
	// and then: a clean end of the body (truncated_midline → truncated); a
	// TCP RST (reset_midline → connection_reset); nothing, with no
	// keep-alive, until the client leaves (stall_midline → timeout_idle);
	// a dropped connection (abort_midline → truncated). A half line is
	// never an event: it adds no token and no protocol error.
	FaultTruncatedMidline = "truncated_midline"
	FaultResetMidline     = "reset_midline"
	FaultStallMidline     = "stall_midline"
	FaultAbortMidline     = "abort_midline"
	// From the first token on, token chunks as fast as the connection
	// takes them, until the client leaves: timeout_total, or whatever
	// bound the client sets on a response's size, with its memory bounded
	// all along. The server reuses one buffer and allocates nothing per
	// token.
	FaultFlood = "flood"
	// 200, the role chunk, a finish_reason "stop" chunk, usage with
	// completion_tokens 0 (when asked for), [DONE]: no token at all. On
	// the wire a success with finish stop and 0 output tokens; llmsla
	// counts it as the error empty_answer (sample.KindEmptyAnswer), so
	// that it cannot drop out of the latency percentiles unseen.
	FaultEmptyAnswer = "empty_answer"
	// 400 with an OpenAI error body whose message holds the request's
	// secrets (see Config.Echo) after more than 200 characters: client_error,
	// its message with every secret redacted in full, even where the
	// message is shortened (redact first, then cut).
	FaultEchoError = "echo_error"
)

// FaultKinds lists every fault kind; the order fixes how a uniform draw maps
// to a kind, so it must only ever grow at the end.
var FaultKinds = []string{
	FaultTimeoutHeaders, FaultTimeoutIdle, FaultTimeoutTotal, FaultConnectionReset,
	FaultRateLimited, FaultServerError, FaultServerErrorJSON, FaultClientError,
	FaultAuth, FaultProtocolContentType, FaultProtocolBadChunk, FaultProtocolLongLine,
	FaultMidstreamError, FaultMidstreamErrorSpaced, FaultMidstreamErrorVLLM,
	FaultTruncated, FaultTruncatedAbort,
	FaultMidstreamErrorEvent, FaultGzipUnasked, FaultTruncatedMidline, FaultResetMidline,
	FaultStallMidline, FaultAbortMidline, FaultFlood, FaultEmptyAnswer, FaultEchoError,
}

// ErrConfig is wrapped by every error from Validate and ParseSpec.
var ErrConfig = errors.New("sim: bad config")

// Validate reports the first setting that cannot be simulated.
func (c Config) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
	}
	for name, d := range map[string]time.Duration{
		"ttft": c.TTFT, "prefill": c.PrefillPerToken, "tpot": c.TPOT, "keepalive": c.KeepAlive,
		"slow_after": c.SlowAfter,
	} {
		if d < 0 {
			return bad("%s=%v is negative", name, d)
		}
	}
	for name, v := range map[string]float64{
		"ttft_jitter": c.TTFTJitter, "tpot_jitter": c.TPOTJitter,
		"slowdown": c.Slowdown, "scale": c.Scale, "slow_factor": c.SlowFactor,
	} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("%s=%v must be a finite number >= 0", name, v)
		}
	}
	if c.SlowAfter > 0 && c.SlowFactor == 0 {
		// Fail closed: a soak that was meant to drift must not run flat.
		return bad("slow_after=%v needs slow_factor (the factor TTFT is multiplied by)", c.SlowAfter)
	}
	if c.Slots < 0 {
		return bad("slots=%d must be >= 0 (0 = unlimited)", c.Slots)
	}
	if c.OutputTokens < 0 || c.ReasoningTokens < 0 {
		return bad("tokens=%d, reasoning=%d: must be >= 0", c.OutputTokens, c.ReasoningTokens)
	}
	if !isProb(c.WrongRate) || !isProb(c.InvalidJSONRate) {
		return bad("wrong=%v, invalid_json=%v: rates must be in [0,1]", c.WrongRate, c.InvalidJSONRate)
	}
	sum := 0.0
	for kind, p := range c.Faults {
		if !isFault(kind) {
			return bad("unknown fault kind %q (allowed: %v)", kind, FaultKinds)
		}
		if !isProb(p) {
			return bad("fault=%s:%v: probability must be in [0,1]", kind, p)
		}
		sum += p
	}
	if sum > 1+1e-9 {
		return bad("fault probabilities sum to %v > 1", sum)
	}
	if err := c.validateJudge(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := c.validateAgents(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

func isProb(p float64) bool { return p >= 0 && p <= 1 }

func isFault(kind string) bool {
	for _, k := range FaultKinds {
		if k == kind {
			return true
		}
	}
	return false
}
