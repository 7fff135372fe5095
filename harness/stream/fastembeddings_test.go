package stream

import (
	"encoding/json"
	"reflect"
	"testing"
)

// embeddingsBodies are the shapes fastEmbeddings is held to encoding/json
// on: OpenAI's reference, vLLM's and TEI's (extra keys, no index, an
// id), and what a hostile or broken server sends.
var embeddingsBodies = map[string]struct {
	body string
	fast bool // decoded on the fast path, not handed to encoding/json
}{
	"openai":            {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0023064255,-0.009327292,1e-3,-2.5E+2]},{"object":"embedding","index":1,"embedding":[0.1,0.2,0.3,0.4]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`, true},
	"vllm":              {`{"id":"embd-1","object":"list","created":1700000000,"model":"BAAI/bge-m3","data":[{"index":0,"object":"embedding","embedding":[0.5,-0.5]}],"usage":{"prompt_tokens":3,"total_tokens":3,"completion_tokens":0,"prompt_tokens_details":null}}`, true},
	"no index":          {`{"data":[{"embedding":[1,2]},{"embedding":[3,4]}]}`, true},
	"spaces":            {" {\n \"data\" : [ { \"index\" : 1 , \"embedding\" : [ 1 , 2 ] } ] , \"model\" : null } \n", true},
	"empty vector":      {`{"data":[{"index":0,"embedding":[]}]}`, true},
	"null vector":       {`{"data":[{"index":0,"embedding":null}]}`, true},
	"null data":         {`{"data":null}`, true},
	"empty data":        {`{"data":[]}`, true},
	"keys folded":       {`{"DATA":[{"Index":0,"EMBEDDING":[1]}],"Model":"m"}`, true},
	"model a number":    {`{"data":[],"model":7}`, true},
	"null element":      {`{"data":[{"embedding":[1,null,2]}]}`, false},
	"string element":    {`{"data":[{"embedding":[1,"2"]}]}`, false},
	"nested element":    {`{"data":[{"embedding":[1,[2,3]]}]}`, false},
	"out of range":      {`{"data":[{"embedding":[1e400]}]}`, false},
	"fractional index":  {`{"data":[{"index":0.5,"embedding":[1]}]}`, false},
	"data twice":        {`{"data":[{"embedding":[1]}],"data":[{"embedding":[2,3]}]}`, false},
	"usage twice":       {`{"data":[],"usage":{"prompt_tokens":5},"usage":{}}`, false},
	"embedding twice":   {`{"data":[{"embedding":[1,2],"embedding":[3]}]}`, false},
	"escaped key":       {`{"d\u0061ta":[{"embedding":[1]}]}`, false},
	"trailing bytes":    {`{"data":[]} x`, false},
	"not an object":     {`[1,2]`, false},
	"null body":         {`null`, false},
	"cut short":         {`{"data":[{"embedding":[1,2`, false},
	"leading zero":      {`{"data":[{"embedding":[01]}]}`, false},
	"data an object":    {`{"data":{"embedding":[1]}}`, false},
	"element a number":  {`{"data":[1]}`, false},
	"bad utf-8 skipped": {"{\"x\":\"\xff\",\"data\":[]}", true},
}

// TestFastEmbeddingsAsEncodingJSON: each body the fast path decodes, it
// decodes as encoding/json does; the others it hands over.
func TestFastEmbeddingsAsEncodingJSON(t *testing.T) {
	for name, tc := range embeddingsBodies {
		t.Run(name, func(t *testing.T) {
			var fast embeddingsResponse
			ok := fastEmbeddings([]byte(tc.body), &fast)
			if ok != tc.fast {
				t.Errorf("fast path %v, want %v", ok, tc.fast)
			}
			sameAsEncodingJSON(t, []byte(tc.body))
		})
	}
}

// FuzzFastEmbeddings: whatever the fast path decodes, encoding/json
// decodes without error into the same response.
func FuzzFastEmbeddings(f *testing.F) {
	for _, tc := range embeddingsBodies {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameAsEncodingJSON(t, b) })
}

func sameAsEncodingJSON(t *testing.T, b []byte) {
	t.Helper()
	var fast, std embeddingsResponse
	if !fastEmbeddings(b, &fast) {
		return
	}
	if err := json.Unmarshal(b, &std); err != nil {
		t.Fatalf("the fast path decoded %q, which encoding/json refuses: %v", b, err)
	}
	if !reflect.DeepEqual(fast, std) {
		t.Fatalf("%q: fast path %+v, encoding/json %+v", b, fast, std)
	}
}
