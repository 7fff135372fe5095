package sim

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// call is one request in flight. It lives on the handler's goroutine only,
// so nothing in it is locked; per-token work is one append into a reused
// buffer, one Write, one Flush and one timer Reset.
type call struct {
	s   *Server
	cfg *Config
	tr  *Truth
	req *openai.ChatCompletionRequest
	hr  *http.Request // for the secrets that Echo and echo_error send back
	w   http.ResponseWriter
	rc  *http.ResponseController
	ctx context.Context

	tpot       *rand.Rand
	timer      *time.Timer
	from       time.Time // what the first token's delay counts from: arrival, or the end of a header stall
	ttftFactor float64   // Scale × jitter × drift, drawn once; slowdown is applied when the delay is decided
	next       time.Time // when the next token is due
	held       bool      // holds a generation slot (Config.Slots)
	immediate  bool      // the slot was free on arrival: no queue wait
	nl         string    // line ending
	base       []byte    // `{"id":…,"object":…,"created":…,"model":…,` shared by every chunk
	buf        []byte
	// pings: keep-alive comments may go out while waiting: an event stream
	// has begun (never in a JSON body) and no data line is cut short.
	pings     bool
	gz        *gzip.Writer
	reasoning []string
	answer    []string
	tools     *toolPlan // a tool-call answer instead of text; nil for text
	wire      wire      // the events of an API other than chat (api.go); nil for chat
	toolSent  int       // of its tokens, those sent
	scheduled int       // tokens given a due time so far (see schedule)
	kvBlocks  int       // KV blocks held while generating (metrics.go)
	started   bool      // generation began: counted in /metrics
	running   bool      // counted among the running requests now
	sent      []string  // content tokens sent, for Truth.Answer
	finish    string
	failed    bool // a write or flush failed: the client is gone
}

func newCall(s *Server, cfg *Config, tr *Truth, req *openai.ChatCompletionRequest, w http.ResponseWriter, r *http.Request) *call {
	c := &call{
		s: s, cfg: cfg, tr: tr, req: req, hr: r, w: w, ctx: r.Context(),
		rc:    http.NewResponseController(w),
		tpot:  draw(cfg.Seed, tr.Index, streamTPOT),
		timer: time.NewTimer(time.Hour),
		nl:    "\n",
		buf:   make([]byte, 0, 512),
	}
	c.timer.Stop()
	if cfg.CRLF {
		c.nl = "\r\n"
	}
	model := req.Model
	if model == "" {
		model = "sim"
	}
	if cfg.SwapModel != "" && tr.Index >= cfg.SwapAfter {
		model = cfg.SwapModel
	}
	tr.Served = model
	// With MultiLine the separators between members end the data line
	// and start the next, built once here so per-token work stays the same.
	sep := ","
	if cfg.MultiLine {
		sep = "," + c.nl + "data: "
	}
	c.base = append(c.base, `{"id":"`+tr.ID+`"`+sep+`"object":"chat.completion.chunk"`+sep+`"created":`...)
	c.base = strconv.AppendInt(c.base, tr.Received.Unix(), 10)
	c.base = append(c.base, sep+`"model":`...)
	c.base = appendJSONString(c.base, model)
	c.base = append(c.base, sep...)
	return c
}

// run plans the answer and the delays, then plays the request out.
func (c *call) run() {
	defer c.timer.Stop()
	defer c.releaseSlot()
	defer func() {
		c.tr.Answer = strings.Join(c.sent, "")
		if c.tools != nil && c.toolSent > 0 {
			c.tr.ToolCalls = c.tools.callsOf(c.toolSent)
		}
	}()
	c.from = c.tr.Received
	c.plan()
	switch c.tr.Fault {
	case FaultTimeoutHeaders:
		// A queue that never answers; if the client is patient, it ends
		// up being served, late.
		if !c.sleepUntil(c.tr.Received.Add(holdHeaders)) {
			return
		}
		c.from = time.Now()
	case FaultConnectionReset:
		c.reset()
		return
	case FaultRateLimited, FaultServerError, FaultServerErrorJSON, FaultClientError, FaultAuth, FaultEchoError:
		if c.wire == nil || !c.wire.status(c) {
			c.statusFault()
		}
		return
	case FaultProtocolContentType:
		// The wrong shape for what was asked: JSON to a stream request,
		// an event stream to a plain one.
		if c.req.Stream {
			c.complete()
		} else {
			c.stream()
		}
		return
	}
	if c.req.Stream {
		c.stream()
	} else {
		c.complete()
	}
	c.closeGzip()
}

func (c *call) plan() {
	cfg, tr := c.cfg, c.tr
	// Draw every stream whatever the answer, so Echo or a fault leaves
	// the other requests of a run as they were.
	tr.Wrong = cfg.WrongRate > 0 && draw(cfg.Seed, tr.Index, streamWrong).Float64() < cfg.WrongRate
	tr.InvalidJSON = cfg.InvalidJSONRate > 0 && draw(cfg.Seed, tr.Index, streamInvalid).Float64() < cfg.InvalidJSONRate
	tr.ToolWrong = cfg.ToolWrongRate > 0 && draw(cfg.Seed, tr.Index, streamToolWrong).Float64() < cfg.ToolWrongRate
	tr.ToolBadJSON = cfg.ToolBadJSONRate > 0 && draw(cfg.Seed, tr.Index, streamToolBadJSON).Float64() < cfg.ToolBadJSONRate
	if cfg.UsageOffRate > 0 && draw(cfg.Seed, tr.Index, streamUsageOff).Float64() < cfg.UsageOffRate {
		tr.UsageOff = cfg.UsageOffTokens
	}
	c.reasoning = loremTokens(cfg.ReasoningTokens, 7)
	if tr.Fault == FaultEmptyAnswer {
		c.reasoning = nil
	}
	c.finish = "stop"
	if calls := c.toolCalls(); len(calls) > 0 {
		c.planTools(calls)
	} else {
		tr.ToolWrong, tr.ToolBadJSON = false, false
		c.planText()
	}
	tr.PrefillTokens = tr.PromptTokens
	c.ttftFactor = cfg.scale() * tr.SlowFactor * jitter(draw(cfg.Seed, tr.Index, streamTTFT), cfg.TTFTJitter)
	// Decided here for the requests that never start generating (status
	// faults), and again by start once a slot is held or the prefix
	// cache has spared some prefill.
	tr.TTFTDelay = c.ttftDelay()
}

// planText plans a text answer: the hook's, a wrong one, a broken one,
// Echo's or lorem words.
func (c *call) planText() {
	cfg, tr := c.cfg, c.tr
	var text string
	if cfg.Echo || tr.Fault == FaultEmptyAnswer {
		tr.Wrong, tr.InvalidJSON = false, false
	}
	switch {
	case tr.Fault == FaultEmptyAnswer:
		c.answer = []string{}
	case cfg.Echo:
		text = echoText(c.hr)
	case c.judging():
		text = c.verdict()
	case tr.Wrong:
		if cfg.Wrong != nil {
			text = cfg.Wrong(c.req)
		}
		if text == "" {
			text = "I don't know"
		}
	default:
		if cfg.Answer != nil {
			text = cfg.Answer(c.req)
		}
		if text == "" {
			c.answer = loremTokens(cfg.OutputTokens, 0)
		}
	}
	if c.answer == nil {
		if tr.InvalidJSON {
			text = breakJSON(text)
		}
		c.answer = splitTokens(text)
	} else if tr.InvalidJSON {
		c.answer = splitTokens(breakJSON(strings.Join(c.answer, "")))
	}
	c.answer = c.lengthen(c.answer)
	c.answer = c.answer[:c.budget(len(c.answer))]
}

// lengthen goes on past the end of the answer, as a server ignoring its
// end-of-sequence token does: to min_tokens, or with ignore_eos to
// max_tokens (reasoning counts toward both).
func (c *call) lengthen(answer []string) []string {
	want := c.tr.MinTokens
	if c.tr.IgnoreEOS && c.tr.MaxTokens > 0 {
		want = max(want, c.tr.MaxTokens)
	}
	if more := want - len(c.reasoning) - len(answer); more > 0 && c.tr.Fault != FaultEmptyAnswer {
		answer = append(answer, loremTokens(more, len(answer))...)
	}
	return answer
}

// budget applies max_tokens to reasoning, which comes first, and an
// answer of n tokens: it cuts c.reasoning and returns how many of the n
// fit after it, with finish "length" when something was cut.
func (c *call) budget(n int) int {
	limit := c.tr.MaxTokens
	if limit <= 0 || len(c.reasoning)+n <= limit {
		return n
	}
	c.reasoning = c.reasoning[:min(len(c.reasoning), limit)]
	c.finish = "length"
	return limit - len(c.reasoning)
}

// planned is the number of tokens the answer will have.
func (c *call) planned() int {
	n := len(c.reasoning) + len(c.answer)
	if c.tools != nil {
		n += c.tools.tokens
	}
	return n
}

// ttftDelay is the time from arrival (or from the end of a queue wait) to
// the first token.
func (c *call) ttftDelay() time.Duration {
	return scaled(c.cfg.firstToken(c.tr.PrefillTokens), c.ttftFactor*c.slowdown())
}

// slowdown models a server that shares its compute between the requests
// it is working on at the moment a delay is decided: those in flight, or,
// with Slots, those holding a slot (a queued request costs no compute).
func (c *call) slowdown() float64 {
	if c.cfg.Slowdown == 0 {
		return 1
	}
	n := c.s.InFlight()
	if c.cfg.Slots > 0 {
		n, _ = c.s.Slots()
	}
	return 1 + c.cfg.Slowdown*float64(max(n, 1)-1)
}

// tokenDue moves the schedule on by one TPOT. The schedule is kept on
// deadlines so that timer lateness does not add up over a long answer, but
// a late token resets it to now so that lateness never turns into a burst.
func (c *call) tokenDue() {
	d := scaled(c.cfg.TPOT, jitter(c.tpot, c.cfg.TPOTJitter)*c.slowdown())
	c.next = c.next.Add(d)
	if now := time.Now(); c.next.Before(now) {
		c.next = now
	}
}

// sleepUntil waits for t, sending keep-alive comments meanwhile once an
// event stream has begun. It returns false as soon as the client is gone.
func (c *call) sleepUntil(t time.Time) bool {
	for {
		if c.failed || c.ctx.Err() != nil {
			return false
		}
		d := time.Until(t)
		if d <= 0 {
			return true
		}
		ping := c.pings && c.cfg.KeepAlive > 0 && d > c.cfg.KeepAlive
		if ping {
			d = c.cfg.KeepAlive
		}
		c.timer.Reset(d)
		select {
		case <-c.ctx.Done():
			c.timer.Stop()
			return false
		case <-c.timer.C:
		}
		if ping {
			c.raw(": ping" + c.nl + c.nl)
		}
	}
}

// raw writes and flushes s and stamps Truth.Last.
func (c *call) raw(s string) time.Time {
	c.buf = append(c.buf[:0], s...)
	return c.flushBuf()
}

func (c *call) flushBuf() time.Time {
	if c.failed {
		return time.Time{}
	}
	var err error
	if c.gz != nil {
		// A sync flush per write keeps a gzip stream a stream.
		if _, err = c.gz.Write(c.buf); err == nil {
			err = c.gz.Flush()
		}
	} else {
		_, err = c.w.Write(c.buf)
	}
	if err == nil {
		err = c.rc.Flush()
	}
	now := time.Now()
	if err != nil {
		c.failed = true
		return now
	}
	c.tr.Last = now
	return now
}

// begin sends the status line and headers of a 200 response.
func (c *call) begin(contentType string) {
	h := c.w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Request-Id", c.tr.ID)
	if c.tr.Fault == FaultGzipUnasked {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length") // it counted the plain body
		// BestSpeed: the smallest compressor state, for a fault that
		// only needs the body to be gzip.
		c.gz, _ = gzip.NewWriterLevel(c.w, gzip.BestSpeed)
	}
	c.w.WriteHeader(http.StatusOK)
	c.tr.Status = http.StatusOK
	if err := c.rc.Flush(); err != nil {
		c.failed = true
	}
	c.tr.Headers = time.Now()
	c.tr.Last = c.tr.Headers
}

func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"' || ch == '\\':
			b = append(b, '\\', ch)
		case ch == '\n':
			b = append(b, '\\', 'n')
		case ch == '\r':
			b = append(b, '\\', 'r')
		case ch == '\t':
			b = append(b, '\\', 't')
		case ch < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[ch>>4], hex[ch&0xf])
		default:
			b = append(b, ch)
		}
	}
	return append(b, '"')
}

// usage is the OpenAI usage object; reasoning tokens are part of
// completion_tokens, as OpenAI counts them.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	PromptDetails    *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details,omitempty"`
	Details *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details,omitempty"`
}

func (c *call) usage() usage {
	u := usage{
		PromptTokens:     c.tr.PromptTokens,
		CompletionTokens: c.tr.OutputTokens + c.tr.UsageOff,
		TotalTokens:      c.tr.PromptTokens + c.tr.OutputTokens + c.tr.UsageOff,
	}
	if c.tr.Cache {
		u.PromptDetails = &struct {
			CachedTokens int `json:"cached_tokens"`
		}{c.tr.CachedTokens}
	}
	if len(c.reasoning) > 0 {
		u.Details = &struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		}{len(c.reasoning)}
	}
	return u
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs are marshalled here
	}
	return b
}
