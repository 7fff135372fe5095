package objective

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/stats"
)

// Each case's consistency (case_pass_min: {k: 3, pass: 3}): a fixture case
// asked k times counts k times in accuracy, so a case that fails one try
// in three hides behind the cases that always pass. The objective judges
// each case apart, over every level of a scenario's run on an endpoint: a
// case must pass pass of every k tries (pass^k when pass = k), and have
// been tried k times at least, or the run fails, naming the cases always
// wrong apart from the flaky ones.

// MaxCaseTries bounds case_pass_min's k.
const MaxCaseTries = 100

// ParseCasePass returns the case_pass_min objective: every case passes at
// least pass of its k tries.
func ParseCasePass(k, pass int) (Threshold, error) {
	if k < 1 || k > MaxCaseTries || pass < 1 || pass > k {
		return Threshold{}, fmt.Errorf("case_pass_min: {k: %d, pass: %d}: want 1 ≤ pass ≤ k ≤ %d (e.g. {k: 3, pass: 3}: every case right each of 3 tries)", k, pass, MaxCaseTries)
	}
	return Threshold{Fig: metric.Fig{Metric: metric.ByName("case_pass")}, Value: float64(pass) / float64(k), K: k}, nil
}

// pass is the tries of k a case must pass.
func (th Threshold) pass() int { return int(math.Round(th.Value * float64(th.K))) }

// caseText is the objective as people check it: "every case passes 3 of 3 tries".
func (th Threshold) caseText() string {
	return fmt.Sprintf("every case passes %d of %d tries", th.pass(), th.K)
}

// checkCases judges pooled, a run's cases with their tries over every
// level, against th. Got is the share of cases checked that meet it.
func checkCases(th Threshold, cases map[string]*stats.Case) (Violation, bool) {
	var wrong, flaky, short []string
	ids := make([]string, 0, len(cases))
	for id := range cases {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	judged, met := 0, 0
	for _, id := range ids {
		c := cases[id]
		tries := c.Passed + c.Failed
		if tries == 0 {
			continue // never checked (every try errored): error_rate's
		}
		judged++
		allowed := (th.K - th.pass()) * tries / th.K
		switch {
		case c.Failed > allowed && c.Passed == 0:
			wrong = append(wrong, fmt.Sprintf("%s (0 of %d)", id, tries))
		case c.Failed > allowed:
			flaky = append(flaky, fmt.Sprintf("%s (passed %d of %d)", id, c.Passed, tries))
		case tries < th.K:
			short = append(short, fmt.Sprintf("%s (%d)", id, tries))
		default:
			met++
		}
	}
	v := Violation{Threshold: th, Got: math.NaN(), N: judged}
	if judged == 0 {
		return v, true
	}
	v.Got = float64(met) / float64(judged)
	var parts []string
	for _, p := range []struct {
		what string
		ids  []string
	}{{"always wrong", wrong}, {"flaky", flaky}, {fmt.Sprintf("asked fewer than %d times", th.K), short}} {
		if len(p.ids) > 0 {
			parts = append(parts, p.what+": "+listCases(p.ids))
		}
	}
	v.Detail = strings.Join(parts, "; ")
	return v, met < judged
}

// listCases names at most 10 cases, and how many more.
func listCases(ids []string) string {
	const most = 10
	if len(ids) <= most {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:most], ", "), len(ids)-most)
}

// caseViolation is a case_pass_min violation's line: "case pass: 2 of 12
// cases miss every case passes 3 of 3 tries (always wrong: …; flaky: …)".
func (v Violation) caseLine() string {
	th := v.Threshold
	if math.IsNaN(v.Got) {
		return fmt.Sprintf("case pass not measured, want %s: it needs %s", th.caseText(), th.Needs)
	}
	missed := v.N - int(math.Round(v.Got*float64(v.N)))
	return fmt.Sprintf("case pass: %d of %d cases miss %s (%s)", missed, v.N, th.caseText(), v.Detail)
}
