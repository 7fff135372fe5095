package stream

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var chunkSeeds = []string{
	tokA[6:], tokB[5:], role[6:], empty[6:], think[6:], think2[6:], tool[6:], stop[6:], usage[6:],
	`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"a\nb \"q\" \u00e9"},"logprobs":null,"finish_reason":null,"stop_reason":null}]}`,
	`{"object":"error","message":"oops","type":"BadRequestError","code":400}`,
	`{ "error": {"message": "overloaded", "code": 503} }`,
	`{"choices":[{"delta":{"content":"x"},"finish_reason":"length"},{"delta":null},null],"usage":null}`,
	`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":0}}}`,
	`{"ID":"up","Choices":[{"Delta":{"Content":"folded"}}]}`,
	`{"id":"a","id":null,"choices":[{"finish_reason":"stop","finish_reason":null}]}`,
	`{"choices":[{"delta":{"content":"\ud83d\ude00 \ud800"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}`,
	`{"choices":[{"delta":{"content":1}}]}`,
	`{"choices":{}}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":[1,2,]}`, `{"a":tru}`, `[]`, `null`, `{} x`, `{"a":"\q"}`,
	"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
	// Content as typed parts (Magistral), in every shape the decoder takes
	// and some it must refuse.
	`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"},null,{"type":"ref","text":"x"}]},{"type":"text","text":"a"}]}}]}`,
	`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":"plain"},null,{"type":"image_url","image_url":{"url":"u"}},{"type":"reasoning","text":"r"}]}}]}`,
	`{"choices":[{"delta":{"content":[{"TYPE":"text","Text":"a","text":null,"thinking":null}]}}]}`,
	`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":"a","thinking":[{"type":"text","text":"b"}]}]}}]}`,
	`{"choices":[{"delta":{"content":[]}}]}`, `{"choices":[{"delta":{"content":["a"]}}]}`, `{"choices":[{"delta":{"content":{}}}]}`,
	`{"choices":[{"delta":{"content":[{"type":1}]}}]}`, `{"choices":[{"delta":{"content":[{"type":"thinking","thinking":5}]}}]}`,
	`{"choices":[{"delta":{"content":"a","content":[{"type":"text","text":"b"}]}}]}`,
	// Tool-call deltas: fragments, whole calls, no index, TGI's object,
	// the legacy function_call, and index values encoding/json refuses.
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":""}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{}","name":"g"},"id":"","type":"function"},{"function":{"name":"g"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":{"index":0,"id":"","type":"function","function":{"name":null,"arguments":"{\""}}}}]}`,
	`{"choices":[{"delta":{"tool_calls":[null,{"index":-3,"function":null},{"INDEX":7,"Function":{"Arguments":{"a":[1,true]}}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":1,"index":null,"id":"a","id":"b","function":{"arguments":"x","arguments":null,"name":"n"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":12.5e3}},{"function":{"arguments":false}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[]}}]}`, `{"choices":[{"delta":{"tool_calls":null}}]}`, `{"choices":[{"delta":{"tool_calls":"x"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":1.0}]}}]}`, `{"choices":[{"delta":{"tool_calls":[{"index":"1"}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":123456789012345678901}]}}]}`, `{"choices":[{"delta":{"tool_calls":[{"index":-0}]}}]}`,
	`{"choices":[{"delta":{"function_call":{"name":"f","arguments":"{"}}}]}`, `{"choices":[{"delta":{"function_call":null}}]}`,
	`{"choices":[{"delta":{"function_call":"f"}}]}`,
	// Provenance, Groq's x_groq, llama.cpp's timings, the usage details.
	`{"model":5,"system_fingerprint":null,"choices":[]}`, `{"model":"m","model":["x"],"system_fingerprint":"f\u0070"}`,
	`{"choices":[],"x_groq":{"id":"req","usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"queue_time":0.1}}}`,
	`{"choices":[],"x_groq":{"error":"stopped"}}`, `{"choices":[],"x_groq":null}`, `{"choices":[],"x_groq":[]}`,
	`{"choices":[],"timings":{"cache_n":96,"prompt_n":1}}`, `{"choices":[],"timings":{"cache_n":null}}`, `{"choices":[],"timings":{"cache_n":1.5}}`,
	`{"choices":[],"usage":{"prompt_tokens":1536,"completion_tokens":5,"total_tokens":1541,"prompt_cache_hit_tokens":1472,"prompt_cache_miss_tokens":64}}`,
	`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":12,"total_tokens":27,"prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":0}}}`,
}

// FuzzFastChunk: wherever the fast path decodes a line, encoding/json
// decodes it too, to the same chunk.
//
//	go test -run '^$' -fuzz FuzzFastChunk -fuzztime 60s ./harness/
func FuzzFastChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	for _, s := range vendorChunks(f) {
		f.Add([]byte(s))
	}
	// One intern for the whole run: the strings it lends from earlier
	// inputs must never change what a chunk decodes to.
	var in intern
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow chunk
		if !fastChunk(data, &fast, &in) {
			return
		}
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", data, err)
		}
		if !sameChunk(fast, slow) {
			t.Fatalf("%q:\nfast %+v\njson %+v", data, fast, slow)
		}
	})
}

// TestFastChunkSeeds checks the fast path takes the usual chunks, and
// every chunk of the recorded vendor streams (so that it is not silently
// bypassed).
func TestFastChunkSeeds(t *testing.T) {
	usual := []string{tokA[6:], role[6:], stop[6:], usage[6:], think2[6:]}
	for i := range usual {
		usual[i] = strings.TrimSpace(usual[i])
	}
	for _, s := range append(usual, vendorChunks(t)...) {
		var c chunk
		if !fastChunk([]byte(s), &c, nil) {
			t.Errorf("fast path refused %s", s)
		}
	}
}

// vendorChunks is the data of every chunk of the recorded vendor streams.
func vendorChunks(tb testing.TB) []string {
	var out []string
	for name := range vendorShapes {
		for _, b := range readVendorStream(tb, name).blocks {
			if data, ok := strings.CutPrefix(strings.TrimSpace(b), "data: "); ok && data != "[DONE]" {
				out = append(out, data)
			}
		}
	}
	return out
}

func sameChunk(a, b chunk) bool {
	norm := func(c chunk) chunk {
		c.Error = canonRaw(c.Error)
		if c.XGroq != nil {
			g := *c.XGroq
			g.Error = canonRaw(g.Error)
			c.XGroq = &g
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func canonRaw(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return nil
	}
	return append(json.RawMessage{}, r...)
}
