package sample

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNewFieldsOnTheWire: a known zero of cached tokens is written (it is
// a figure), an unknown one is not, and tool calls carry the names
// METRICS.md gives them; each reads back as written.
func TestNewFieldsOnTheWire(t *testing.T) {
	zero := 0
	cases := map[string]struct {
		s        Sample
		has, not []string
	}{
		"cache known, nothing cached": {Sample{CachedTokens: &zero}, []string{`"cached_tokens":0`}, nil},
		"cache unknown":               {Sample{}, nil, []string{"cached_tokens", "tool_calls", "ttftool_ns", "tool_done_ns", "reasoning_source"}},
		"tool calls": {Sample{ToolCalls: []ToolCall{{Index: 1, ID: "c", Name: "f", Arguments: `{"a":1}`}}, TTFTool: 5, ToolDone: 9,
			ReasoningSource: ReasoningInferred, ResponseModel: "m-2", SystemFingerprint: "fp"},
			[]string{`"tool_calls":[{"index":1,"id":"c","name":"f","arguments":"{\"a\":1}"}]`, `"ttftool_ns":5`, `"tool_done_ns":9`,
				`"reasoning_source":"inferred"`, `"response_model":"m-2"`, `"system_fingerprint":"fp"`}, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range tc.has {
				if !strings.Contains(string(b), h) {
					t.Errorf("%s: no %s", b, h)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(string(b), n) {
					t.Errorf("%s: has %s", b, n)
				}
			}
			var back Sample
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(back)
			if string(again) != string(b) {
				t.Errorf("read back as\n%s\nwritten\n%s", again, b)
			}
		})
	}
}

// TestContentFilterKind: content_filter is a kind of its own, listed,
// matched by its sentinel and by none other.
func TestContentFilterKind(t *testing.T) {
	listed := false
	for _, k := range Kinds {
		listed = listed || k == KindContentFilter
	}
	if !listed {
		t.Error("content_filter is not in Kinds")
	}
	e := &RequestError{Kind: KindContentFilter}
	if !e.Is(ErrContentFilter) || e.Is(ErrEmptyAnswer) || e.Is(ErrTimeout) {
		t.Error("content_filter matches the wrong sentinels")
	}
}
