package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// ErrNotOllama is returned by Measure for an endpoint whose Kind is
// not "ollama": only Ollama's native API reports the server's timings.
var ErrNotOllama = errors.New("latency breakdown needs an endpoint of kind ollama")

// Summary is where an Ollama endpoint's time to first token goes, for one
// scenario's prompts: requests sent one at a time through the native
// /api/chat, each split by the server's own timings (Breakdown), and
// summarised by means, which add up as each request's split does (a sum of
// medians is not the median of the sums). Samples of the OpenAI-compatible API carry no
// server timings, so the breakdown is a separate, small measurement of the
// same prompts, not a view of the run's samples.
type Summary struct {
	Endpoint string
	N        int // requests split

	// Means over the N requests, in the names of METRICS.md:
	// TTFT = NetworkQueue + Load + Prefill, since network+queue is defined
	// as what the server's two spans leave of the client's TTFT. A large
	// NetworkQueue is time the server did not account for: the network, or
	// waiting behind other requests.
	TTFT, NetworkQueue, Load, Prefill time.Duration

	// Decode rates, means: the client's in content chunks per second
	// ((chunks − 1) / (total − ttft)), the server's in tokens per second
	// (eval_count / eval_duration). NaN when undefined for every request.
	ClientDecode, ServerDecode float64

	// ClientTokens counts content chunks, ServerTokens sums eval_count;
	// Mismatches is the number of requests whose two counts differ (a token
	// ending inside a multi-byte character arrives with the next one).
	ClientTokens, ServerTokens, Mismatches int

	Results []ChatResult // per request, in order
	Splits  []Split      // Results split, index for index
}

// Measure sends reqs to ep through Ollama's native API,
// one at a time, and splits each TTFT. Each request is the prompt's: same
// messages, max tokens (num_predict), seed, and structured-output format;
// a nil temperature becomes 1.0, as Ollama's OpenAI-compatible API makes it,
// and a nil seed 0. A failed request ends the measurement: the breakdown of
// the requests before it is returned with the error.
func Measure(ctx context.Context, ep stream.Endpoint, reqs []stream.Request) (Summary, error) {
	b := Summary{Endpoint: ep.Name}
	if ep.Kind != stream.KindOllama {
		return b, fmt.Errorf("endpoint %q (kind %q): %w", ep.Name, ep.Kind, ErrNotOllama)
	}
	host := Host(ep.BaseURL)
	for i, r := range reqs {
		req, err := NativeRequest(ep.Model, r)
		if err != nil {
			return b.summarize(), fmt.Errorf("endpoint %q: breakdown request %d: %w", ep.Name, i, err)
		}
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if ep.Timeouts.Total > 0 {
			rctx, cancel = context.WithTimeout(ctx, ep.Timeouts.Total)
		}
		res, err := Chat(rctx, host, req)
		cancel()
		if err != nil {
			return b.summarize(), fmt.Errorf("endpoint %q: breakdown request %d: %w", ep.Name, i, err)
		}
		b.Results = append(b.Results, res)
		b.Splits = append(b.Splits, Breakdown(res))
	}
	return b.summarize(), nil
}

// NativeRequest is req as a native /api/chat request.
func NativeRequest(model string, req stream.Request) (ChatRequest, error) {
	out := ChatRequest{Model: model, Temperature: 1, NumPredict: req.MaxTokens}
	if req.Temperature != nil {
		out.Temperature = float64(*req.Temperature)
	}
	if req.Seed != nil {
		out.Seed = *req.Seed
	}
	out.Messages = make([]Message, len(req.Messages))
	for i, m := range req.Messages {
		out.Messages[i] = Message{Role: m.Role, Content: m.Content}
	}
	if rf := req.ResponseFormat; rf != nil {
		switch {
		case rf.Type == openai.ChatCompletionResponseFormatTypeJSONSchema && rf.JSONSchema != nil && rf.JSONSchema.Schema != nil:
			schema, err := json.Marshal(rf.JSONSchema.Schema)
			if err != nil {
				return out, fmt.Errorf("response format schema: %w", err)
			}
			out.Format = schema
		case rf.Type == openai.ChatCompletionResponseFormatTypeJSONObject || rf.Type == openai.ChatCompletionResponseFormatTypeJSONSchema:
			out.Format = json.RawMessage(`"json"`)
		}
	}
	return out, nil
}

// summarize fills the means and counts from Results and Splits.
func (b Summary) summarize() Summary {
	b.N = len(b.Splits)
	var ttft, load, prefill time.Duration
	var cdec, sdec []float64
	b.ClientTokens, b.ServerTokens, b.Mismatches = 0, 0, 0
	for i, sp := range b.Splits {
		ttft, load, prefill = ttft+sp.TTFT, load+sp.Load, prefill+sp.Prefill
		if sp.ClientDecodeOK {
			cdec = append(cdec, sp.ClientDecodeRate)
		}
		if sp.ServerDecodeOK {
			sdec = append(sdec, sp.ServerDecodeRate)
		}
		b.ClientTokens += b.Results[i].Chunks
		b.ServerTokens += b.Results[i].Server.EvalN
		if sp.CountMismatch {
			b.Mismatches++
		}
	}
	if b.N > 0 {
		// Integer means, and network+queue as the remainder, so that the
		// line adds up to the nanosecond.
		n := time.Duration(b.N)
		b.TTFT, b.Load, b.Prefill = ttft/n, load/n, prefill/n
		b.NetworkQueue = b.TTFT - b.Load - b.Prefill
	}
	mean := func(xs []float64) float64 { return stats.Describe(xs).Mean }
	b.ClientDecode, b.ServerDecode = mean(cdec), mean(sdec)
	return b
}

// String is the breakdown on one line, for logs:
//
//	breakdown endpoint=ollama n=3 (means): ttft 21.3ms = network+queue 3.1ms + load 15.0ms + prefill 1.2ms; decode 110/s client (chunks), 118/s server (tokens); tokens client 48 = server 48
func (b Summary) String() string {
	if b.N == 0 {
		return fmt.Sprintf("breakdown endpoint=%s: no requests measured", b.Endpoint)
	}
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	rate := func(v float64) string {
		if v != v { // NaN: undefined for every request
			return "n/a"
		}
		return fmt.Sprintf("%.0f/s", v)
	}
	tokens := fmt.Sprintf("tokens client %d = server %d", b.ClientTokens, b.ServerTokens)
	if b.Mismatches > 0 {
		tokens = fmt.Sprintf("tokens client %d ≠ server %d (%d of %d requests disagree)",
			b.ClientTokens, b.ServerTokens, b.Mismatches, b.N)
	}
	return fmt.Sprintf("breakdown endpoint=%s n=%d (means): ttft %v = network+queue %v + load %v + prefill %v; decode %s client (chunks), %s server (tokens); %s",
		b.Endpoint, b.N, r(b.TTFT), r(b.NetworkQueue), r(b.Load), r(b.Prefill), rate(b.ClientDecode), rate(b.ServerDecode), tokens)
}

// Host is the server root of an Ollama OpenAI-compatible base URL, without
// its query or user info: http://127.0.0.1:11434/v1 → http://127.0.0.1:11434.
func Host(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil {
		u.RawQuery, u.Fragment, u.User = "", "", nil
		baseURL = u.String()
	}
	return strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
}
