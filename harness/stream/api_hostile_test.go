package stream_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// ev is one SSE event as both APIs send it: an event: line naming its
// type and the JSON data.
func ev(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

const apiKey = "sk-ant-hostile-test-key-0123456789"

// apiServer answers every request with status, headers and body, and
// keeps the last request's headers and body.
func apiServer(t *testing.T, status int, header map[string]string, body string) (string, *http.Header, *[]byte) {
	t.Helper()
	var got http.Header
	var sent []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, sent = r.Header.Clone(), nil
		sent, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", &got, &sent
}

type hostileCase struct {
	status int
	header map[string]string
	body   string
	kind   sample.ErrorKind // "" for a request that succeeds
	check  func(t *testing.T, s sample.Sample)
}

func runHostile(t *testing.T, api stream.API, cases map[string]hostileCase) {
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = http.StatusOK
			}
			url, _, _ := apiServer(t, status, tc.header, tc.body)
			c := stream.NewClient(stream.Endpoint{Name: "h", BaseURL: url, Model: "m", API: api, APIKey: apiKey})
			defer c.CloseIdle()
			s := c.Do(context.Background(), helloReq)
			assert.Equal(t, tc.kind, s.ErrKind, "error %q", s.Err)
			b, _ := json.Marshal(s)
			assert.NotContains(t, string(b), apiKey, "the key in the sample")
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

var helloMessages = []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}

var helloReq = stream.Request{Messages: helloMessages}

// Responses events, as the API reference's streaming events give them.
const (
	rCreated   = `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}}`
	rText      = `{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}`
	rCompleted = `{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed","model":"gpt-5","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":11}}}`
)

// TestHostileResponsesStreams: what a broken or hostile Responses server
// sends is typed: an event of an unknown type is skipped, arguments
// before their function_call item and an output_index out of range are
// protocol errors, an error event or response.failed mid-stream is a
// mid-stream error (a rate_limit_exceeded one a rate limit), a stream
// cut before response.completed truncated, a response.completed without
// usage counted from the stream (token_source estimated), a 529 (a
// gateway relaying Anthropic's overload) and a 429 rate limits with
// their retry-after kept.
func TestHostileResponsesStreams(t *testing.T) {
	runHostile(t, stream.APIResponses, map[string]hostileCase{
		"an unknown event type": {body: ev("response.created", rCreated) +
			ev("response.future_thing.delta", `{"type":"response.future_thing.delta","delta":"zzz","output_index":0}`) +
			ev("response.output_text.delta", rText) + ev("response.completed", rCompleted),
			check: func(t *testing.T, s sample.Sample) { assert.Equal(t, 1, s.Chunks); assert.Equal(t, "Hi", s.Content) }},
		"arguments before their item": {body: ev("response.created", rCreated) +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{}"}`),
			kind: sample.KindProtocol, check: errSays("before its function_call item")},
		"an output_index out of range": {body: ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":99999999,"delta":"x"}`),
			kind: sample.KindProtocol, check: errSays("out of range")},
		"a negative output_index": {body: ev("response.output_item.added", `{"type":"response.output_item.added","output_index":-1,"item":{"type":"function_call","call_id":"c","name":"f"}}`),
			kind: sample.KindProtocol},
		"an error event mid-stream": {body: ev("response.output_text.delta", rText) +
			ev("error", `{"type":"error","code":"server_error","message":"boom `+apiKey+`","param":null}`),
			kind: sample.KindMidstream, check: func(t *testing.T, s sample.Sample) { assert.Equal(t, 1, s.Chunks); assert.Contains(t, s.Err, "boom") }},
		"a rate limit error event": {body: ev("error", `{"type":"error","code":"rate_limit_exceeded","message":"slow down"}`), kind: sample.KindRateLimited},
		"response.failed": {body: ev("response.output_text.delta", rText) +
			ev("response.failed", `{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed"}}}`),
			kind: sample.KindMidstream, check: errSays("The model failed")},
		"cut before response.completed": {body: ev("response.output_text.delta", rText), kind: sample.KindTruncated},
		"more cached tokens than input": {body: ev("response.output_text.delta", rText) +
			ev("response.completed", `{"type":"response.completed","response":{"usage":{"input_tokens":5,"input_tokens_details":{"cached_tokens":9},"output_tokens":1,"total_tokens":6}}}`),
			kind: sample.KindProtocol},
		"incomplete at max_output_tokens": {body: ev("response.output_text.delta", rText) +
			ev("response.incomplete", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6}}}`),
			check: func(t *testing.T, s sample.Sample) { assert.Equal(t, "length", s.Finish) }},
		"incomplete by the content filter": {body: ev("response.output_text.delta", rText) +
			ev("response.incomplete", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"},"usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6}}}`),
			kind: sample.KindContentFilter},
		"response.completed without usage": {body: ev("response.output_text.delta", rText) +
			ev("response.completed", `{"type":"response.completed","response":{"id":"resp_1","status":"completed"}}`),
			check: func(t *testing.T, s sample.Sample) {
				assert.Equal(t, sample.TokensEstimated, s.TokenSource)
				assert.Equal(t, 1, s.OutputTokens)
				assert.Equal(t, "stop", s.Finish)
			}},
		"a 529 with retry-after": {status: 529, header: map[string]string{"retry-after": "11", "Content-Type": "application/json"},
			body: `{"error":{"message":"Overloaded","type":"server_error"}}`, kind: sample.KindRateLimited,
			check: func(t *testing.T, s sample.Sample) { assert.Equal(t, "11", s.RetryAfter) }},
		"a 429 with retry-after": {status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "7", "Content-Type": "application/json"},
			body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, kind: sample.KindRateLimited,
			check: func(t *testing.T, s sample.Sample) { assert.Equal(t, "7", s.RetryAfter) }},
	})
}

// Messages events, as the streaming guide gives them.
const (
	mStart     = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`
	mTextStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	mText      = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`
	mStop      = `{"type":"content_block_stop","index":0}`
	mDelta     = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`
	mEnd       = `{"type":"message_stop"}`
)

// TestHostileMessagesStreams: what a broken or hostile Messages server
// sends is typed: an unknown event type is skipped (as the streaming
// guide asks), a delta before its block's start or after its stop, a
// block index out of range and a delta of the wrong type for its block
// are protocol errors, a message_delta without usage leaves the output
// counted from the stream (token_source estimated), an overloaded_error
// event mid-stream and a 529 are rate limits (retry-after kept), and the
// key goes in x-api-key with anthropic-version, never as a bearer token.
func TestHostileMessagesStreams(t *testing.T) {
	ok := ev("message_start", mStart) + ev("content_block_start", mTextStart) + ev("content_block_delta", mText)
	runHostile(t, stream.APIMessages, map[string]hostileCase{
		"an unknown event type": {body: ok + ev("future_event", `{"type":"future_event","index":0,"delta":{"text":"zzz"}}`) +
			ev("ping", `{"type":"ping"}`) + ev("content_block_stop", mStop) + ev("message_delta", mDelta) + ev("message_stop", mEnd),
			check: func(t *testing.T, s sample.Sample) {
				assert.Equal(t, 1, s.Chunks)
				assert.Equal(t, "Hi", s.Content)
				assert.Equal(t, sample.TokensUsage, s.TokenSource)
				assert.Equal(t, "stop", s.Finish)
			}},
		"a delta before its block's start": {body: ev("message_start", mStart) + ev("content_block_delta", mText),
			kind: sample.KindProtocol, check: errSays("before its content_block_start")},
		"a delta after its block's stop": {body: ok + ev("content_block_stop", mStop) + ev("content_block_delta", mText),
			kind: sample.KindProtocol, check: errSays("after its content_block_stop")},
		"a block index out of range": {body: ev("message_start", mStart) +
			ev("content_block_start", `{"type":"content_block_start","index":100000000,"content_block":{"type":"text","text":""}}`),
			kind: sample.KindProtocol, check: errSays("out of range")},
		"a negative block index": {body: ok + ev("content_block_delta", `{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}`),
			kind: sample.KindProtocol},
		"input_json_delta in a text block": {body: ok + ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`),
			kind: sample.KindProtocol},
		"message_delta without usage": {body: ok + ev("content_block_stop", mStop) +
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`) + ev("message_stop", mEnd),
			check: func(t *testing.T, s sample.Sample) {
				assert.Equal(t, sample.TokensEstimated, s.TokenSource)
				assert.Equal(t, 1, s.OutputTokens)
				assert.Equal(t, 10, s.PromptTokens, "message_start's input tokens")
			}},
		"an overloaded_error event mid-stream": {body: ok + ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded `+apiKey+`"}}`),
			kind: sample.KindRateLimited, check: func(t *testing.T, s sample.Sample) {
				assert.Equal(t, 1, s.Chunks)
				assert.Contains(t, s.Err, "overloaded_error")
			}},
		"an api_error event mid-stream": {body: ok + ev("error", `{"type":"error","error":{"type":"api_error","message":"Internal"}}`), kind: sample.KindMidstream},
		"a 529 with retry-after": {status: 529, header: map[string]string{"retry-after": "11", "Content-Type": "application/json"},
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, kind: sample.KindRateLimited,
			check: func(t *testing.T, s sample.Sample) {
				assert.Equal(t, "11", s.RetryAfter)
				assert.Equal(t, 529, s.Status)
			}},
		"cut before message_delta": {body: ok, kind: sample.KindTruncated},
		"stop_reason refusal": {body: ok + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":1}}`) + ev("message_stop", mEnd),
			kind: sample.KindContentFilter},
		"stop_reason max_tokens": {body: ok + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":1}}`) + ev("message_stop", mEnd),
			check: func(t *testing.T, s sample.Sample) { assert.Equal(t, "length", s.Finish) }},
		"cache reads in the prompt": {body: ev("message_start", `{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":20,"output_tokens":1}}}`) +
			ev("content_block_start", mTextStart) + ev("content_block_delta", mText) + ev("message_delta", mDelta) + ev("message_stop", mEnd),
			check: func(t *testing.T, s sample.Sample) {
				assert.Equal(t, 35, s.PromptTokens)
				require.NotNil(t, s.CachedTokens)
				assert.Equal(t, 20, *s.CachedTokens)
			}},
	})
}

// TestMessagesRequest: the key goes in x-api-key with anthropic-version,
// no bearer token; system in system, max_tokens always, tool results in
// a user turn's tool_result blocks, a structured answer a forced tool.
func TestMessagesRequest(t *testing.T) {
	url, hdr, body := apiServer(t, http.StatusOK, nil, ev("message_start", mStart)+ev("message_stop", mEnd))
	c := stream.NewClient(stream.Endpoint{Name: "h", BaseURL: url, Model: "claude", API: stream.APIMessages, APIKey: apiKey, AnthropicVersion: "2023-06-01"})
	defer c.CloseIdle()
	c.Do(context.Background(), stream.Request{Messages: append([]openai.ChatCompletionMessage{{Role: "system", Content: "be brief"}}, helloMessages...)})
	assert.Equal(t, apiKey, hdr.Get("x-api-key"))
	assert.Equal(t, "2023-06-01", hdr.Get("anthropic-version"))
	assert.Empty(t, hdr.Get("Authorization"))
	var w map[string]any
	require.NoError(t, json.Unmarshal(*body, &w))
	assert.Equal(t, "be brief", w["system"])
	assert.EqualValues(t, stream.DefaultMessagesMaxTokens, w["max_tokens"])
	assert.Equal(t, true, w["stream"])
}

func errSays(s string) func(*testing.T, sample.Sample) {
	return func(t *testing.T, smp sample.Sample) {
		assert.True(t, strings.Contains(smp.Err, s), "error %q lacks %q", smp.Err, s)
	}
}

// TestAPIKeyNeverEchoed: a server that sends the request's key back — in
// the answer (the simulator's echo, which repeats the Authorization
// credential and every X- header, x-api-key included) or in an error
// (echo_error) — has it redacted from the sample on every API.
func TestAPIKeyNeverEchoed(t *testing.T) {
	for _, api := range []stream.API{stream.APIResponses, stream.APIMessages, stream.APIEmbeddings} {
		t.Run("api="+string(api), func(t *testing.T) {
			for _, fault := range []string{"none", sim.FaultEchoError} {
				srv, url := sim.Start(t, sim.Config{TTFT: time.Millisecond, OutputTokens: 4, Echo: true, Seed: 1})
				c := stream.NewClient(stream.Endpoint{Name: "h", BaseURL: url, Model: "m", API: api, APIKey: apiKey,
					Headers: map[string]string{sim.FaultHeader: fault}})
				s := c.Do(context.Background(), helloReq)
				c.CloseIdle()
				b, _ := json.Marshal(s)
				assert.NotContains(t, string(b), apiKey, "fault %s: %s", fault, b)
				if api != stream.APIEmbeddings && fault == "none" {
					assert.Contains(t, s.Content, "echo", "the simulator echoed")
					assert.Contains(t, srv.Truth()[0].Answer, apiKey, "the simulator sent the key back")
				}
			}
		})
	}
}
