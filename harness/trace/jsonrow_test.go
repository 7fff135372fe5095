package trace

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzObjectFields: the splitter finds every top-level key of a valid
// object with the value the standard decoder finds.
func FuzzObjectFields(f *testing.F) {
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 6, "hash_ids": [1, [2, {"x": "]"}]]}`,
		` { "a\"b" : "c,}" , "n":null,"t":true, "e": {"k": [1,2]} } `,
		`{"\u0061": 1e3, "b": -0.5}`, `{}`, `[1]`, `{"a":1`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var want map[string]json.RawMessage
		werr := json.Unmarshal(line, &want)
		got := map[string][]byte{}
		err := objectFields(line, func(k string, raw []byte) { got[k] = raw })
		if (werr == nil) != (err == nil) {
			t.Fatalf("%q: error %v, the decoder's %v", line, err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: keys %q, want %q", line, got, want)
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Fatalf("%q: %s = %q, want %q", line, k, got[k], v)
			}
		}
	})
}
