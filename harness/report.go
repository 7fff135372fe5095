package harness

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// Unit is a benchmark unit and its better direction, printed as benchfmt
// metadata so that benchstat and `llmsla gate` know which way is worse.
type Unit struct {
	Name   string
	Better string // "lower" or "higher"
}

// Units are the units a scenario benchmark reports, in report order.
var Units = []Unit{
	{"ttft-p50-ms", "lower"}, {"ttft-p95-ms", "lower"}, {"ttft-p99-ms", "lower"},
	{"ttfa-p95-ms", "lower"}, {"total-p50-ms", "lower"}, {"total-p95-ms", "lower"},
	{"tpot-p50-ms", "lower"}, {"itl-p95-ms", "lower"}, {"out-tok/s", "higher"},
	{"err-%", "lower"}, {"json-valid-%", "higher"}, {"schema-valid-%", "higher"},
	{"accuracy-%", "higher"}, {"good-%", "higher"},
	// Ollama endpoints only: the server's split of the TTFT.
	{"load-ms", "lower"}, {"prefill-ms", "lower"}, {"netq-ms", "lower"}, {"server-tok/s", "higher"},
}

// PrintBenchHeader writes the unit metadata and, per endpoint, its model
// and host as benchfmt configuration lines (never its key or full URL).
func PrintBenchHeader(w io.Writer, cfg *Config) {
	for _, u := range Units {
		fmt.Fprintf(w, "Unit %s better=%s\n", u.Name, u.Better)
	}
	for _, ep := range cfg.Endpoints {
		fmt.Fprintf(w, "endpoint.%s.model: %s\n", NameValue(ep.Name), ep.Model)
		fmt.Fprintf(w, "endpoint.%s.host: %s\n", NameValue(ep.Name), host(ep))
	}
	if len(cfg.Endpoints) == 1 {
		// One endpoint: the plain keys too, as benchstat users expect them.
		ep := cfg.Endpoints[0]
		fmt.Fprintf(w, "endpoint: %s\nmodel: %s\nhost: %s\n", ep.Name, ep.Model, host(ep))
	}
}

// host is the endpoint's host, the only part of its URL a report shows.
func host(ep Endpoint) string {
	if ep.Simulated {
		return "built-in simulator"
	}
	if u, err := url.Parse(ep.BaseURL); err == nil {
		return u.Host
	}
	return "(unparsable URL)"
}

// Figures are a run's benchmark figures by unit; an undefined figure (no
// successful request, no quality check) is absent, never reported as 0.
func (st *Stats) Figures() map[string]float64 {
	f := map[string]float64{}
	put := func(unit string, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			f[unit] = v
		}
	}
	put("ttft-p50-ms", st.TTFT.P50)
	put("ttft-p95-ms", st.TTFT.P95)
	put("ttft-p99-ms", st.TTFT.P99)
	put("ttfa-p95-ms", st.TTFA.P95)
	put("total-p50-ms", st.Total.P50)
	put("total-p95-ms", st.Total.P95)
	put("tpot-p50-ms", st.TPOT.P50)
	put("itl-p95-ms", st.ITL.P95)
	if st.Wall > 0 {
		put("out-tok/s", st.OutTokPerSec)
	}
	put("err-%", 100*st.ErrorRate())
	put("json-valid-%", 100*st.Quality.JSONValidRate())
	put("schema-valid-%", 100*st.Quality.SchemaValidRate())
	put("accuracy-%", 100*st.Quality.AccuracyRate())
	if st.Attempted > 0 {
		put("good-%", 100*st.GoodPct)
	}
	return f
}

// ReportMetrics reports st on b and hides the meaningless ns/op (one
// iteration is one request, and requests overlap).
func ReportMetrics(b *testing.B, st *Stats) {
	b.ReportMetric(0, "ns/op")
	figs := st.Figures()
	for _, u := range Units {
		if v, ok := figs[u.Name]; ok {
			b.ReportMetric(v, u.Name)
		}
	}
}

// ErrorKinds lists the failed requests by kind: "rate_limited=3 truncated=1".
func (st *Stats) ErrorKinds() string {
	kinds := make([]string, 0, len(st.Errors))
	for k, n := range st.Errors {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(kinds)
	return strings.Join(kinds, " ")
}

// Line is a one-line summary of a run for logs.
func (st *Stats) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "n=%d ttft p50/p95 %s/%s ms, total p50/p95 %s/%s ms, tpot p50 %s ms, %.0f out-tok/s, errors %d",
		st.Attempted, num(st.TTFT.P50), num(st.TTFT.P95), num(st.Total.P50), num(st.Total.P95), num(st.TPOT.P50),
		st.OutTokPerSec, st.Failed)
	if st.Failed > 0 {
		fmt.Fprintf(&b, " (%s)", st.ErrorKinds())
	}
	if q := st.Quality; q.Responses > 0 {
		fmt.Fprintf(&b, ", json %s schema %s accuracy %s", rate(q.JSONValidRate()), rate(q.SchemaValidRate()), rate(q.AccuracyRate()))
	}
	if st.Attempted > 0 {
		fmt.Fprintf(&b, ", good %.0f%%", 100*st.GoodPct)
	}
	if st.Cold != nil {
		fmt.Fprintf(&b, "; cold ttft %s ms", num(ms(st.Cold.TTFT)))
	}
	return b.String()
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func rate(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}
