package trace

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"time"
)

// FromLog writes the requests of logs as a Mooncake trace to w: each
// successful request a row at its timestamp (in ms from the first), its
// prompt tokens the input length and its output tokens the output's, in
// time order. A failed request is left out (its output length is not
// known) and counted; a request without prompt tokens is an error, since
// a row needs an input length.
func FromLog(paths []string, f LogFields, w io.Writer) (rows, failed int, err error) {
	type req struct {
		at            time.Time
		input, output int
	}
	var reqs []req
	err = ReadLog(paths, f, func(r LogRequest) error {
		if !r.Sample.OK() {
			failed++
			return nil
		}
		if r.Prompt == 0 {
			return fmt.Errorf("%s: missing: a trace row needs the prompt's length (name the field in logs.fields.prompt_tokens)", f.PromptTokens)
		}
		reqs = append(reqs, req{r.Sample.Start, r.Prompt, r.Sample.OutputTokens})
		return nil
	})
	if err != nil {
		return 0, failed, err
	}
	if len(reqs) == 0 {
		return 0, failed, fmt.Errorf("no successful request to make a trace of (%d failed)", failed)
	}
	slices.SortStableFunc(reqs, func(a, b req) int { return a.at.Compare(b.at) })
	bw := bufio.NewWriter(w)
	for _, r := range reqs {
		row := Row{At: r.at.Sub(reqs[0].at).Truncate(time.Millisecond), Input: r.input, Output: r.output}
		if err := writeMooncake(bw, row); err != nil {
			return 0, failed, err
		}
	}
	return len(reqs), failed, bw.Flush()
}
