package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a native /api/chat request. Temperature and Seed are always
// sent, so the zero value asks for deterministic output (the server's own
// default temperature is 0.8); NumPredict ≤ 0 leaves the server's limit.
// Format is sent as the native "format" when set: the JSON string "json", or
// a JSON Schema object, which the server turns into a grammar (what the
// OpenAI-compatible API does with response_format).
type ChatRequest struct {
	Model       string
	Messages    []Message
	Temperature float64
	Seed        int
	NumPredict  int
	Format      json.RawMessage
}

// Timings are the server's own figures from the final chunk, converted from
// nanoseconds.
type Timings struct {
	Load       time.Duration // load_duration: loading the model, ~0 when warm
	PromptEval time.Duration // prompt_eval_duration: prefill
	PromptN    int           // prompt_eval_count
	Eval       time.Duration // eval_duration: decode
	EvalN      int           // eval_count: generated tokens
	Total      time.Duration // total_duration
}

// ChatResult is one streamed /api/chat request timed by the client, with the
// server's timings beside. Client durations run from t0, the instant before
// the HTTP request is sent, on the monotonic clock.
type ChatResult struct {
	TTFB   time.Duration // t0 → response headers
	TTFT   time.Duration // t0 → first chunk with non-empty message.content; 0 if none
	Total  time.Duration // t0 → the done chunk (or the end of a truncated stream)
	Chunks int           // chunks with non-empty message.content

	Content    string
	DoneReason string // "stop", "length", …
	Server     Timings
}

// chatChunk is one NDJSON line of the stream. Ollama sends durations as
// integer nanoseconds, which is what time.Duration decodes from.
type chatChunk struct {
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
	Done               bool          `json:"done"`
	DoneReason         string        `json:"done_reason"`
	Error              string        `json:"error"`
	TotalDuration      time.Duration `json:"total_duration"`
	LoadDuration       time.Duration `json:"load_duration"`
	PromptEvalCount    int           `json:"prompt_eval_count"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration"`
	EvalCount          int           `json:"eval_count"`
	EvalDuration       time.Duration `json:"eval_duration"`
}

// Chat streams req to host's native POST /api/chat (host as [Server.Host])
// and times it. A failed request returns what was measured so far and the
// error; a stream that ends without a `done: true` chunk is
// sample.ErrTruncated.
func Chat(ctx context.Context, host string, req ChatRequest) (ChatResult, error) {
	var r ChatResult
	opts := map[string]any{"temperature": req.Temperature, "seed": req.Seed}
	if req.NumPredict > 0 {
		opts["num_predict"] = req.NumPredict
	}
	m := map[string]any{"model": req.Model, "messages": req.Messages, "stream": true, "options": opts}
	if len(req.Format) > 0 {
		m["format"] = req.Format
	}
	body, err := json.Marshal(m)
	if err != nil {
		return r, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost,
		strings.TrimRight(host, "/")+"/api/chat", bytes.NewReader(body))
	if err != nil {
		return r, err
	}
	hreq.Header.Set("Content-Type", "application/json")

	t0 := time.Now()
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	r.TTFB = time.Since(t0)
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return r, fmt.Errorf("ollama: /api/chat: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
	}

	var content strings.Builder
	// json.Decoder returns each value as soon as it is complete, so the
	// timestamps are those of arrival, not of a buffered batch.
	dec := json.NewDecoder(resp.Body)
	for {
		var c chatChunk
		err := dec.Decode(&c)
		now := time.Since(t0)
		if err != nil {
			r.Total, r.Content = now, content.String()
			if errors.Is(err, io.EOF) {
				// No `done: true` chunk: the partial result goes with it.
				return r, fmt.Errorf("ollama: /api/chat: stream ended before done: %w", sample.ErrTruncated)
			}
			return r, fmt.Errorf("ollama: /api/chat stream: %w", err)
		}
		if c.Error != "" {
			r.Total, r.Content = now, content.String()
			return r, fmt.Errorf("ollama: /api/chat: %s", c.Error)
		}
		if c.Message.Content != "" {
			if r.Chunks == 0 {
				r.TTFT = now
			}
			r.Chunks++
			content.WriteString(c.Message.Content)
		}
		if c.Done {
			r.Total, r.Content, r.DoneReason = now, content.String(), c.DoneReason
			r.Server = Timings{
				Load: c.LoadDuration, PromptEval: c.PromptEvalDuration, PromptN: c.PromptEvalCount,
				Eval: c.EvalDuration, EvalN: c.EvalCount, Total: c.TotalDuration,
			}
			return r, nil
		}
	}
}
