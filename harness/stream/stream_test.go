package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawServer answers every request with body, written line by line with a
// pause before the lines that start with "data:", so that timings differ.
func rawServer(t *testing.T, contentType, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(200)
		for _, line := range strings.SplitAfter(body, "\n") {
			if strings.HasPrefix(line, "data:") {
				time.Sleep(3 * time.Millisecond)
			}
			io.WriteString(w, line)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

const (
	role   = `data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}` + "\n\n"
	empty  = `data: {"id":"c1","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}` + "\n\n"
	tokA   = `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` + "\n\n"
	tokB   = `data:{"id":"c1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}` + "\n\n"
	think  = `data: {"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"hmm"},"finish_reason":null}]}` + "\n\n"
	think2 = `data: {"id":"c1","choices":[{"index":0,"delta":{"reasoning":"hmm"},"finish_reason":null}]}` + "\n\n"
	tool   = `data: {"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}` + "\n\n"
	stop   = `data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	usage  = `data: {"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}` + "\n\n"
	done   = "data: [DONE]\n\n"
	ping   = ": ping\n\n"
)

func TestStreamParsing(t *testing.T) {
	cases := map[string]struct {
		body      string
		kind      sample.ErrorKind
		tokens    int
		source    sample.TokenSource
		content   string
		ttfaLater bool // ttfa after ttft (reasoning first)
	}{
		"openai":                 {role + tokA + tokB + stop + usage + done, sample.KindNone, 2, sample.TokensUsage, "Hello", false},
		"role and empty ignored": {role + ping + empty + ping + tokA + tokB + stop + usage + done, sample.KindNone, 2, sample.TokensUsage, "Hello", false},
		"no usage: estimated":    {tokA + tokB + stop + done, sample.KindNone, 2, sample.TokensEstimated, "Hello", false},
		"eof after finish":       {tokA + tokB + stop + usage, sample.KindNone, 2, sample.TokensUsage, "Hello", false},
		"eof without finish":     {tokA + tokB, sample.KindTruncated, 0, "", "", false},
		"usage only then eof":    {tokA + usage, sample.KindTruncated, 0, "", "", false},
		"reasoning_content":      {think + tokA + tokB + stop + done, sample.KindNone, 3, sample.TokensEstimated, "Hello", true},
		"reasoning":              {think2 + tokA + stop + done, sample.KindNone, 2, sample.TokensEstimated, "Hel", true},
		"tool call counts":       {tool + stop + done, sample.KindNone, 1, sample.TokensEstimated, "", false},
		"crlf":                   {strings.ReplaceAll(role+tokA+tokB+stop+usage+done, "\n", "\r\n"), sample.KindNone, 2, sample.TokensUsage, "Hello", false},
		"error after tokens":     {tokA + `data: {"error":{"message":"overloaded"}}` + "\n\n", sample.KindMidstream, 0, "", "", false},
		"error key order":        {tokA + `data: {"code":500,"error":"boom"}` + "\n\n", sample.KindMidstream, 0, "", "", false},
		"vllm error":             {`data: {"object":"error","message":"oops","type":"x","code":500}` + "\n\n", sample.KindMidstream, 0, "", "", false},
		"undecodable":            {tokA + "data: {nope\n\n", sample.KindProtocol, 0, "", "", false},
		"empty stream":           {"", sample.KindTruncated, 0, "", "", false},
		// The SSE spec, beyond one data line per event.
		"json over several data lines": {"data: {\"id\":\"c1\",\ndata:\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\ndata:  \"finish_reason\":null}]}\n\n" + tokB + stop + done,
			sample.KindNone, 2, sample.TokensEstimated, "Hello", false},
		"cr line ends":         {strings.ReplaceAll(role+tokA+tokB+stop+usage+done, "\n", "\r"), sample.KindNone, 2, sample.TokensUsage, "Hello", false},
		"byte order mark":      {"\xEF\xBB\xBF" + tokA + tokB + stop + done, sample.KindNone, 2, sample.TokensEstimated, "Hello", false},
		"other fields":         {"id: 7\nretry: 100\nevent: message\nfoo: bar\n" + tokA + "data\n\n" + tokB + stop + done, sample.KindNone, 2, sample.TokensEstimated, "Hello", false},
		"event error":          {tokA + "event: error\ndata: {\"message\":\"boom\",\"code\":500}\n\n", sample.KindMidstream, 0, "", "", false},
		"event error, text":    {tokA + "event: error\ndata: upstream timed out\n\n", sample.KindMidstream, 0, "", "", false},
		"no blank line at end": {tokA + "data: [DONE]\n", sample.KindTruncated, 0, "", "", false},
		"half a line at end":   {tokA + `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo"}`, sample.KindTruncated, 0, "", "", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			url := rawServer(t, "text/event-stream", tc.body)
			c := NewClient(Endpoint{Name: "raw", BaseURL: url, Model: "m"})
			defer c.CloseIdle()
			s := c.Do(context.Background(), helloRequest)
			assert.Equal(t, tc.kind, s.ErrKind, s.Err)
			if tc.kind != sample.KindNone {
				return
			}
			assert.Equal(t, tc.tokens, s.OutputTokens)
			assert.Equal(t, tc.source, s.TokenSource)
			if tc.source == sample.TokensEstimated {
				assert.Positive(t, s.PromptTokens, "without usage the prompt's length is estimated, never 0")
			}
			assert.Equal(t, tc.content, s.Content)
			assert.Greater(t, s.TTFT, time.Duration(0))
			assert.GreaterOrEqual(t, s.Total, s.TTFT)
			assert.GreaterOrEqual(t, s.TTFT, s.TTFB)
			if tc.ttfaLater {
				assert.Greater(t, s.TTFA, s.TTFT)
			} else if tc.content != "" {
				assert.Equal(t, s.TTFT, s.TTFA)
			}
			if s.Chunks > 1 {
				require.NotNil(t, s.ITL)
				assert.EqualValues(t, s.Chunks-1, s.ITL.N, "one gap between each pair of token chunks")
				assert.LessOrEqual(t, s.ITL.Sum, s.Total-s.TTFT, "the gaps span the first token to the last")
			}
		})
	}
}

// TestTTFTSkipsNonTokens: the role chunk, the empty content and comments come
// 3 ms apart before the first token; TTFT must be measured at the token.
func TestTTFTSkipsNonTokens(t *testing.T) {
	url := rawServer(t, "text/event-stream", role+empty+ping+usage[:0]+tokA+stop+done)
	c := NewClient(Endpoint{Name: "raw", BaseURL: url, Model: "m"})
	defer c.CloseIdle()
	s := c.Do(context.Background(), helloRequest)
	assert.True(t, s.OK(), s.Err)
	assert.GreaterOrEqual(t, s.TTFT, 9*time.Millisecond, "three data lines of 3 ms each precede the first token")
}

func TestNotAnEventStream(t *testing.T) {
	url := rawServer(t, "application/json", `{"choices":[]}`)
	s := NewClient(Endpoint{Name: "raw", BaseURL: url, Model: "m"}).Do(context.Background(), helloRequest)
	assert.Equal(t, sample.KindProtocol, s.ErrKind)
	assert.Contains(t, s.Err, "application/json")
}

func TestTemperatureZeroIsSent(t *testing.T) {
	zero := float32(0)
	seed := 42
	body, err := NewClient(Endpoint{Model: "m"}).Body(Request{Temperature: &zero, Seed: &seed})
	assert.NoError(t, err)
	assert.Contains(t, string(body), `"temperature":0`)
	assert.Contains(t, string(body), `"seed":42`)
	assert.Contains(t, string(body), `"stream_options":{"include_usage":true}`)
	body, _ = NewClient(Endpoint{Model: "m"}).Body(Request{})
	assert.NotContains(t, string(body), "temperature", "unset stays unset")
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-test-secret-value-123456"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A hostile server echoing the request headers back.
		w.WriteHeader(401)
		io.WriteString(w, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	ep := Endpoint{Name: "x", BaseURL: srv.URL + "/v1", Model: "m", APIKey: key}
	s := NewClient(ep).Do(context.Background(), helloRequest)
	assert.Equal(t, sample.KindAuth, s.ErrKind)
	assert.NotContains(t, ep.String(), key)
	assert.Contains(t, s.Err, "auth (HTTP 401)")
	assert.NotContains(t, s.Err, key, "a server echoing the key back must not put it in the report")
	assert.Contains(t, s.Err, "[redacted]")
}

func TestURLQueryKeptAndRedacted(t *testing.T) {
	c := NewClient(Endpoint{Name: "x", BaseURL: "http://127.0.0.1:9/openai/v1/?api-version=2024-10&key=sk-q-secret", Model: "m"})
	assert.Equal(t, "http://127.0.0.1:9/openai/v1/chat/completions?api-version=2024-10&key=sk-q-secret", c.url)
	s := c.Do(context.Background(), helloRequest)
	assert.Equal(t, sample.KindConnRefused, s.ErrKind)
	assert.NotContains(t, s.Err, "sk-q-secret")
	assert.NotContains(t, Endpoint{BaseURL: "http://u:p@h/v1?key=sk-q-secret"}.String(), "sk-q-secret")
}

func TestMaxTokensParam(t *testing.T) {
	req := Request{MaxTokens: 64}
	body, _ := NewClient(Endpoint{Model: "m"}).Body(req)
	assert.Contains(t, string(body), `"max_tokens":64`)
	assert.NotContains(t, string(body), "max_completion_tokens")
	body, _ = NewClient(Endpoint{Model: "o3", MaxTokensParam: MaxCompletionTokens}).Body(req)
	assert.Contains(t, string(body), `"max_completion_tokens":64`)
	assert.NotContains(t, string(body), `"max_tokens"`)
}

// TestBodyCarriesTools: the tools, tool_choice and an agent loop's
// follow-up turn (the assistant's calls, the tool's result) go out as the
// chat-completions API reads them.
func TestBodyCarriesTools(t *testing.T) {
	req := Request{
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}},
		ToolChoice: json.RawMessage(`{"type":"function","function":{"name":"get_weather"}}`),
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Weather in Paris?"},
			{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
			{Role: "tool", ToolCallID: "c1", Name: "get_weather", Content: `{"temp_c":18}`}},
	}
	body, err := NewClient(Endpoint{Model: "m"}).Body(req)
	require.NoError(t, err)
	var got struct {
		Tools      []map[string]any `json:"tools"`
		ToolChoice map[string]any   `json:"tool_choice"`
		Messages   []map[string]any `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	require.Len(t, got.Tools, 1)
	assert.Equal(t, "function", got.Tools[0]["type"])
	assert.Equal(t, map[string]any{"name": "get_weather", "parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}, got.Tools[0]["function"])
	assert.Equal(t, "get_weather", got.ToolChoice["function"].(map[string]any)["name"])
	require.Len(t, got.Messages, 3)
	calls := got.Messages[1]["tool_calls"].([]any)
	assert.Equal(t, map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}, calls[0])
	assert.Equal(t, "c1", got.Messages[2]["tool_call_id"])
	assert.Equal(t, `{"temp_c":18}`, got.Messages[2]["content"])
	body, _ = NewClient(Endpoint{Model: "m"}).Body(helloRequest)
	assert.NotContains(t, string(body), "tool", "no tools offered, none sent")
}

var helloRequest = Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}}

// TestStreamEndMessages: how a stream ended is said in the error, so that a
// user can tell a server's framing from a cut connection.
func TestStreamEndMessages(t *testing.T) {
	cases := map[string]struct {
		body string
		kind sample.ErrorKind
		msg  string
	}{
		"event error json":       {tokA + "event: error\ndata: {\"message\":\"boom\",\"code\":500}\n\n", sample.KindMidstream, "boom"},
		"event error text":       {tokA + "event: error\ndata: upstream timed out\n\n", sample.KindMidstream, "upstream timed out"},
		"no blank line after it": {tokA + "data: [DONE]\n", sample.KindTruncated, "inside an event (1 data lines"},
		"half a line":            {tokA + "data: {\"id\":\"c1\"", sample.KindTruncated, "inside a line (16 bytes"},
		"done only":              {done, sample.KindEmptyAnswer, "no answer token before [DONE]"},
		"role, stop, usage":      {role + stop + usage + done, sample.KindEmptyAnswer, "no answer token before finish_reason stop"},
		"reasoning only, length": {think + think2 + strings.Replace(stop, `"stop"`, `"length"`, 1) + done, sample.KindEmptyAnswer,
			"(2 reasoning chunks only: max_tokens may have gone to reasoning)"},
		"joined lines undecodable": {tokA + "data: {\"id\":\"c1\"}\ndata: {\"id\":\"c1\"}\n\n", sample.KindProtocol,
			"undecodable event (2 data lines, joined with newlines"},
		"content filter": {tokA + tokB + `data: {"choices":[{"delta":{},"finish_reason":"content_filter"}]}` + "\n\n" + done, sample.KindContentFilter,
			"finish_reason content_filter: the server's filter ended the answer after 2 answer chunks"},
		"x_groq error": {tokA + `data: {"choices":[],"x_groq":{"id":"r","error":"upstream gone"}}` + "\n\n" + done, sample.KindMidstream,
			`x_groq.error: "upstream gone"`},
		"negative usage": {tokA + stop + `data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":-2,"total_tokens":3}}` + "\n\n" + done,
			sample.KindProtocol, "usage.completion_tokens -2 is negative"},
		"more cached than prompt": {tokA + stop + `data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":9}}}` + "\n\n" + done,
			sample.KindProtocol, "usage: 9 cached tokens of a prompt of 5"},
		"negative cache_n": {tokA + stop + `data: {"choices":[],"timings":{"cache_n":-1}}` + "\n\n" + done,
			sample.KindProtocol, "timings.cache_n -1 is negative"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := NewClient(Endpoint{Name: "raw", BaseURL: rawServer(t, "text/event-stream", tc.body), Model: "m"})
			defer c.CloseIdle()
			s := c.Do(context.Background(), helloRequest)
			assert.Equal(t, tc.kind, s.ErrKind, s.Err)
			assert.Contains(t, s.Err, tc.msg)
		})
	}
}

// TestTPOTCountsWhatWasStreamed: tpot spans every token streamed from the
// first of any kind, whatever the server's usage counts.
func TestTPOTCountsWhatWasStreamed(t *testing.T) {
	usageOf := func(completion, reasoning int) string {
		details := ""
		if reasoning > 0 {
			details = fmt.Sprintf(`,"completion_tokens_details":{"reasoning_tokens":%d}`, reasoning)
		}
		return fmt.Sprintf(`data: {"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":%d,"total_tokens":%d%s}}`+"\n\n", completion, 5+completion, details)
	}
	usageTotal := func(completion, total int, cached *int) string {
		details := ""
		if cached != nil {
			details = fmt.Sprintf(`,"prompt_tokens_details":{"cached_tokens":%d}`, *cached)
		}
		return fmt.Sprintf(`data: {"id":"c1","choices":[],"usage":{"prompt_tokens":6,"completion_tokens":%d,"total_tokens":%d%s}}`+"\n\n", completion, total, details)
	}
	cases := map[string]struct {
		body                     string
		output, reasoning, spans int // spans: tokens tpot divides over
		source                   sample.TokenSource
	}{
		// vLLM, DeepSeek: completion_tokens counts the reasoning too.
		"usage counts reasoning": {think + think + think + tokA + tokB + stop + usageOf(5, 0) + done, 5, 3, 5, sample.TokensUsage},
		// A server whose completion_tokens counts the answer alone: the
		// reasoning chunks are added, and the count is ours.
		"usage counts the answer alone": {think + think + think + tokA + tokB + stop + usageOf(2, 0) + done, 5, 3, 5, sample.TokensEstimated},
		// OpenAI's o-series: reasoning counted, never streamed, all of it
		// before the first token.
		"reasoning not streamed": {tokA + tokB + stop + usageOf(102, 100) + done, 102, 100, 2, sample.TokensUsage},
		"no usage":               {think + tokA + tokB + stop + done, 3, 1, 3, sample.TokensEstimated},
		// Gemini: reasoning counted in total_tokens alone; the excess is
		// reasoning, inferred, and output.
		"hidden reasoning in the total": {tokA + tokB + stop + usageTotal(2, 6+2+6, nil) + done, 8, 6, 2, sample.TokensUsage},
		// A layer whose prompt_tokens leave out the cache reads its total
		// counts: the excess is the cached tokens, not reasoning.
		"the excess is the cache": {tokA + tokB + stop + usageTotal(2, 6+2+4, cached(4)) + done, 2, 0, 2, sample.TokensUsage},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := NewClient(Endpoint{Name: "raw", BaseURL: rawServer(t, "text/event-stream", tc.body), Model: "m"})
			defer c.CloseIdle()
			s := c.Do(context.Background(), helloRequest)
			require.True(t, s.OK(), s.Err)
			assert.Equal(t, tc.output, s.OutputTokens, "output tokens")
			assert.Equal(t, tc.reasoning, s.ReasoningTokens, "reasoning tokens")
			assert.Equal(t, tc.source, s.TokenSource)
			tpot, ok := s.TPOT()
			require.True(t, ok)
			assert.Equal(t, (s.Total-s.TTFT)/time.Duration(tc.spans-1), tpot)
			answer, ok := s.AnswerTPOT()
			require.True(t, ok)
			assert.Equal(t, (s.Total-s.TTFA)/time.Duration(tc.output-tc.reasoning-1), answer)
		})
	}
}
