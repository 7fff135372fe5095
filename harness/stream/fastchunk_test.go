package stream

import (
	"encoding/json"
	"reflect"
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
}

// FuzzFastChunk: wherever the fast path decodes a line, encoding/json
// decodes it too, to the same chunk.
//
//	go test -run '^$' -fuzz FuzzFastChunk -fuzztime 60s ./harness/
func FuzzFastChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow chunk
		if !fastChunk(data, &fast, nil) {
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

// TestFastChunkSeeds runs the fuzz seeds as a plain test, and checks the
// fast path takes the usual chunks (so that it is not silently bypassed).
func TestFastChunkSeeds(t *testing.T) {
	for _, s := range []string{tokA[6:], role[6:], stop[6:], usage[6:], think2[6:]} {
		var c chunk
		if !fastChunk([]byte(s[:len(s)-2]), &c, nil) {
			t.Errorf("fast path refused the usual chunk %s", s)
		}
	}
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
