package stream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Events each fast decoder must refuse or decode as encoding/json does:
// repeats, nulls, folded keys, escapes, other types, broken JSON.
var (
	responsesSeeds = []string{
		`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`,
		`{"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc_1","delta":"{\"city\":"}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":""}}`,
		`{"type":"response.completed","response":{"id":"resp_1","model":"gpt-4.1","status":"completed","usage":{"input_tokens":9,"output_tokens":3,"total_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}}`,
		`{"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}`,
		`{"type":"error","code":429,"message":null}`, `{"type":"error","code":null,"code":"x"}`,
		`{"TYPE":"response.output_text.delta","Delta":"folded","Output_Index":2}`,
		`{"type":"response.output_text.delta","delta":"a","delta":null,"delta":"b"}`,
		`{"type":"response.output_text.delta","output_index":1,"output_index":null}`,
		`{"type":"response.output_text.delta","output_index":1.5}`, `{"type":"x","output_index":"1"}`, `{"output_index":-0}`,
		`{"output_index":123456789012345678901}`, `{"output_index":-7}`,
		`{"type":"response.output_text.delta","delta":"\u00e9\n\"q\""}`, "{\"type\":\"response.output_text.delta\",\"delta\":\"\xff\"}",
		`{"type":"response.output_text\u002edelta","delta":"escaped type"}`,
		`{"type":"response.output_item.added","item":{"type":"function_call"},"item":{"name":"merged"}}`,
		`{"type":"response.completed","response":null}`, `{"type":"response.completed","response":{"model":5}}`,
		`{"type":"response.output_text.delta","delta":5}`, `{"type":7}`, `{"type":"response.created","response":[]}`,
		`{"ſtype":"x"}`, `{"type":"x"} y`, `{"type":"x",}`, `[]`, `null`, `"x"`, `{}`, ` {"type" : "ping" } `,
	}
	messagesSeeds = []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`,
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","usage":{"input_tokens":472,"output_tokens":2,"cache_read_input_tokens":0}}}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`,
		`{"type":"message_stop"}`, `{"type":"ping"}`, `{"type":"content_block_stop","index":0}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, `{"type":"error","error":null}`,
		`{"Type":"content_block_delta","INDEX":0,"Delta":{"TYPE":"text_delta","Text":"folded"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"delta":{"text":"merged"}}`,
		`{"type":"content_block_delta","index":0,"delta":null}`, `{"type":"content_block_delta","delta":{"text":null,"text":"b","text":null}}`,
		`{"type":"content_block_delta","index":null,"index":3}`, `{"index":1.0}`, `{"index":"1"}`, `{"index":-1}`, `{"index":99999999999999999999}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}`, `{"delta":[]}`, `{"delta":"x"}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d\ude00 \ud800"}}`,
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xfe\"}}",
		`{"type":"message_start","message":{"id":"a"},"message":{"model":"b"}}`, `{"usage":{"output_tokens":1},"usage":null}`,
		`{"type":"message_delta","usage":{"output_tokens":-3}}`, `{"type":"message_delta","usage":{"output_tokens":1.5}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}`, `{"type":"x"}}`, `{"a":01}`, `{"a":tru}`, `null`, `{}`,
	}
)

// FuzzFastResponsesEvent: wherever the fast path decodes a Responses
// event, encoding/json decodes it too, to the same event.
//
//	go test -run '^$' -fuzz FuzzFastResponsesEvent -fuzztime 60s ./harness/stream/
func FuzzFastResponsesEvent(f *testing.F) {
	for _, s := range append(responsesSeeds, apiEvents(f, "responses-")...) {
		f.Add([]byte(s))
	}
	var room int // one for the whole run, as a stream's reader keeps it
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow responsesEvent
		if !fastResponsesEvent(data, &fast, &room) {
			return
		}
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\njson %+v", data, fast, slow)
		}
	})
}

// FuzzFastMessagesEvent is FuzzFastResponsesEvent for Messages events.
//
//	go test -run '^$' -fuzz FuzzFastMessagesEvent -fuzztime 60s ./harness/stream/
func FuzzFastMessagesEvent(f *testing.F) {
	for _, s := range append(messagesSeeds, apiEvents(f, "messages-")...) {
		f.Add([]byte(s))
	}
	var room messagesRoom
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow messagesEvent
		if !fastMessagesEvent(data, &fast, &room) {
			return
		}
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\njson %+v", data, fast, slow)
		}
	})
}

// TestFastAPIEvents: the fast paths take every event of the recorded API
// streams and the usual shapes, so that they are not silently bypassed,
// and keep the stream's repeated types as the shared strings.
func TestFastAPIEvents(t *testing.T) {
	for _, s := range append(apiEvents(t, "responses-"), responsesSeeds[:5]...) {
		var e responsesEvent
		var room int
		if !fastResponsesEvent([]byte(s), &e, &room) {
			t.Errorf("Responses fast path refused %s", s)
		}
	}
	for _, s := range append(apiEvents(t, "messages-"), messagesSeeds[:10]...) {
		var e messagesEvent
		var room messagesRoom
		if !fastMessagesEvent([]byte(s), &e, &room) {
			t.Errorf("Messages fast path refused %s", s)
		}
	}
	var m messagesReader
	var r responsesReader
	for data, decode := range map[string]func([]byte) bool{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`:                        func(b []byte) bool { return fastMessagesEvent(b, &m.ev, &m.room) },
		`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"delta":"Hello"}`: func(b []byte) bool { return fastResponsesEvent(b, &r.ev, &r.index) },
	} {
		b := []byte(data)
		if allocs := testing.AllocsPerRun(100, func() { decode(b) }); allocs > 1 {
			t.Errorf("%s costs %.0f allocations, want 1 (its text)", data, allocs)
		}
	}
}

// apiEvents is the data of every event of testdata/apis's streams whose
// file name starts with prefix.
func apiEvents(tb testing.TB, prefix string) []string {
	files, err := filepath.Glob(filepath.Join(apiDir, prefix+"*.sse"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no %s streams in %s (%v)", prefix, apiDir, err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data: "); ok {
				out = append(out, data)
			}
		}
	}
	return out
}
