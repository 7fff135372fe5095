package verdict

import (
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Change is an endpoint whose responses named more than one model, or
// more than one system fingerprint, during the run: its figures pool what
// several models did, so they are no verdict on either until a user says
// they may be pooled (-allow-change). Served splits the measured requests
// by what answered them, in the order first seen.
type Change struct {
	Endpoint string
	What     string // "model" or "system fingerprint"
	Served   []Served
}

// Served is what one model (or fingerprint) answered of a run: its
// measured requests, the first one's index among the endpoint's measured
// requests in the order recorded, and their TTFT and total latency.
type Served struct {
	Value       string
	Requests    int
	From        int
	TTFT, Total stats.Summary
}

// Changes are the run's endpoints whose served model or fingerprint
// changed, endpoint by endpoint in the order the samples name them.
func Changes(samples []sample.Sample) []Change {
	var order []string
	by := map[string][]*sample.Sample{}
	for i := range samples {
		s := &samples[i]
		if !s.Measured() {
			continue
		}
		if _, ok := by[s.Endpoint]; !ok {
			order = append(order, s.Endpoint)
		}
		by[s.Endpoint] = append(by[s.Endpoint], s)
	}
	var out []Change
	for _, ep := range order {
		for _, what := range []string{"model", "system fingerprint"} {
			if c := change(ep, what, by[ep]); len(c.Served) > 1 {
				out = append(out, c)
			}
		}
	}
	return out
}

func change(ep, what string, ss []*sample.Sample) Change {
	c := Change{Endpoint: ep, What: what}
	idx := map[string]int{}
	var ttft, total [][]float64
	for i, s := range ss {
		v := s.ResponseModel
		if what != "model" {
			v = s.SystemFingerprint
		}
		if v == "" {
			continue
		}
		k, ok := idx[v]
		if !ok {
			k = len(c.Served)
			idx[v] = k
			c.Served = append(c.Served, Served{Value: v, From: i})
			ttft, total = append(ttft, nil), append(total, nil)
		}
		c.Served[k].Requests++
		if s.OK() {
			ttft[k] = append(ttft[k], s.TTFT.Seconds()*1e3)
			total[k] = append(total[k], s.Total.Seconds()*1e3)
		}
	}
	for k := range c.Served {
		c.Served[k].TTFT, c.Served[k].Total = stats.Describe(ttft[k]), stats.Describe(total[k])
	}
	return c
}

// String is the warning: what changed, and each served value's share of
// the requests and its figures, so the two models are told apart.
func (c Change) String() string {
	parts := make([]string, len(c.Served))
	for i, s := range c.Served {
		figs := "none answered"
		if s.TTFT.N > 0 {
			figs = fmt.Sprintf("ttft p50 %.4g ms, total p95 %.4g ms", s.TTFT.P50, s.Total.P95)
		}
		parts[i] = fmt.Sprintf("%s from request %d (%s; %s)", escape.Text(s.Value), s.From+1, report.Plural(s.Requests, "request", "requests"), figs)
	}
	return fmt.Sprintf("endpoint %s: the %s served changed during the run: %s", escape.Text(c.Endpoint), c.What, strings.Join(parts, ", then "))
}
