package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Account is what one judge endpoint was asked, from the samples of its
// requests (Judge.Sent): how many, how many gave a verdict, why the others
// did not, how long they took and the tokens they used. It is reported
// apart: no judge request is in any measured figure.
type Account struct {
	Judge    string
	Requests int
	Verdicts int
	// Failed counts the requests that gave no verdict, by FailureKind.
	Failed map[string]int
	// Total is the requests' durations in ms, TTFT their first tokens'.
	Total, TTFT  stats.Summary
	PromptTokens int
	OutputTokens int
}

// Summarize accounts the samples of judge requests, one Account per judge
// endpoint, in name order.
func Summarize(samples []sample.Sample) []Account {
	by := map[string]*Account{}
	totals, ttfts := map[string][]float64{}, map[string][]float64{}
	var names []string
	for i := range samples {
		s := &samples[i]
		a := by[s.Endpoint]
		if a == nil {
			a = &Account{Judge: s.Endpoint, Failed: map[string]int{}}
			by[s.Endpoint] = a
			names = append(names, s.Endpoint)
		}
		a.Requests++
		a.PromptTokens += s.PromptTokens
		a.OutputTokens += s.OutputTokens
		if s.OK() {
			totals[s.Endpoint] = append(totals[s.Endpoint], stats.Ms(s.Total))
			if s.TTFT > 0 {
				ttfts[s.Endpoint] = append(ttfts[s.Endpoint], stats.Ms(s.TTFT))
			}
		}
		switch q := s.Quality; {
		case q != nil && q.JudgeChecked && q.JudgeError == "":
			a.Verdicts++
		case q != nil && q.JudgeError != "":
			a.Failed[failureOf(q.JudgeError)]++
		default:
			a.Failed["other"]++
		}
	}
	slices.Sort(names)
	out := make([]Account, 0, len(names))
	for _, n := range names {
		a := by[n]
		a.Total, a.TTFT = stats.Describe(totals[n]), stats.Describe(ttfts[n])
		out = append(out, *a)
	}
	return out
}

// failureOf is the kind of failure a judgment's error text names (each
// begins with its kind's sentence, as the Failures wrap).
func failureOf(text string) string {
	for _, f := range Failures {
		if strings.HasPrefix(text, f.Error()) {
			return FailureKind(f)
		}
	}
	return "other"
}

// FailedTotal is the number of requests that gave no verdict.
func (a Account) FailedTotal() int {
	n := 0
	for _, c := range a.Failed {
		n += c
	}
	return n
}

// String is the account on one line: "judge grader: 22 requests, 20
// verdicts, 2 failed (1 not JSON, 1 timed out); total p50 120 ms, p95 300
// ms; 9800 prompt and 410 output tokens".
func (a Account) String() string {
	s := fmt.Sprintf("judge %s: %d requests, %d verdicts", a.Judge, a.Requests, a.Verdicts)
	if n := a.FailedTotal(); n > 0 {
		var kinds []string
		for _, f := range append(Failures, nil) {
			k := "other"
			if f != nil {
				k = FailureKind(f)
			}
			if c := a.Failed[k]; c > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", c, k))
			}
		}
		s += fmt.Sprintf(", %d failed (%s)", n, strings.Join(kinds, ", "))
	}
	if a.Total.N > 0 {
		s += fmt.Sprintf("; total p50 %s ms, p95 %s ms", metric.Num(a.Total.P50), metric.Num(a.Total.P95))
	}
	return s + fmt.Sprintf("; %d prompt and %d output tokens", a.PromptTokens, a.OutputTokens)
}
