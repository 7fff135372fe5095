package sample_test

import (
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestCheckAsked: a trace row's asked lengths are bounded like every
// token count of a sample.
func TestCheckAsked(t *testing.T) {
	for name, tc := range map[string]struct {
		asked *sample.Asked
		want  string
	}{
		"none":            {nil, ""},
		"fine":            {&sample.Asked{PromptTokens: 10, OutputTokens: 3}, ""},
		"negative prompt": {&sample.Asked{PromptTokens: -1, OutputTokens: 3}, "asked.prompt_tokens: -1 is out of range"},
		"huge output":     {&sample.Asked{PromptTokens: 1, OutputTokens: sample.MaxTokens + 1}, "asked.output_tokens: 2147483649 is out of range"},
	} {
		t.Run(name, func(t *testing.T) {
			s := sample.Sample{Start: time.Now(), Total: time.Millisecond, Finish: "stop", Asked: tc.asked}
			err := s.Check()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check: %v, want %q", err, tc.want)
			}
		})
	}
}
