package harness

import (
	"fmt"
	"io"
	"net/url"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// PrintBenchHeader writes the unit metadata of every benchmark unit in the
// metric table and, per endpoint, its model and host as benchfmt
// configuration lines (never its key or full URL).
func PrintBenchHeader(w io.Writer, cfg *config.Config) {
	for _, u := range metric.Units() {
		fmt.Fprintf(w, "Unit %s better=%s\n", u.Unit(), u.Better())
	}
	for _, ep := range cfg.Endpoints {
		fmt.Fprintf(w, "endpoint.%s.model: %s\n", sample.NameValue(ep.Name), ep.Model)
		fmt.Fprintf(w, "endpoint.%s.host: %s\n", sample.NameValue(ep.Name), host(ep))
	}
	if len(cfg.Endpoints) == 1 {
		// One endpoint: the plain keys too, as benchstat users expect them.
		ep := cfg.Endpoints[0]
		fmt.Fprintf(w, "endpoint: %s\nmodel: %s\nhost: %s\n", ep.Name, ep.Model, host(ep))
	}
}

// host is the endpoint's host, the only part of its URL a report shows.
func host(ep stream.Endpoint) string {
	if ep.Simulated {
		return "built-in simulator"
	}
	if u, err := url.Parse(ep.BaseURL); err == nil {
		return u.Host
	}
	return "(unparsable URL)"
}

// ReportMetrics reports every measured figure of st in its benchmark unit,
// and hides the meaningless ns/op (one iteration is one request, and
// requests overlap). A figure that was not measured is not reported, never
// as 0.
func ReportMetrics(b *testing.B, st *stats.Stats) { reportUnits(b, st, false) }

// reportUnits reports the measured figures of st that belong to one level
// (wholeRun false) or to the whole run over every level (true), and ns/op
// as 0.
func reportUnits(b *testing.B, st *stats.Stats, wholeRun bool) {
	b.ReportMetric(0, "ns/op")
	for _, u := range metric.Units() {
		if v, ok := u.Bench(st); ok && u.WholeRun == wholeRun {
			b.ReportMetric(v, u.Unit())
		}
	}
}
