package metric

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/stats"
)

// TestTableDerivations: everything derived from the table is consistent —
// each threshold key parses back to its figure, units and keys are unique,
// every figure that can be reported has a way to be read, and units name
// their direction the way benchfmt's tools infer it.
func TestTableDerivations(t *testing.T) {
	units := map[string]bool{}
	for _, u := range Units() {
		if units[u.Unit()] {
			t.Errorf("unit %s reported twice", u.Unit())
		}
		units[u.Unit()] = true
		if u.Kind != Server && u.Kind != Search && u.Dist == nil && u.Value == nil {
			t.Errorf("%s: reported but read from nothing", u.Unit())
		}
		if strings.HasSuffix(u.Unit(), "-ms") != u.Lower && u.Kind == Latency {
			t.Errorf("%s: a latency unit must be lower-better", u.Unit())
		}
	}
	keys := map[string]bool{}
	for _, m := range Table {
		if !m.Threshold {
			continue
		}
		figs := []Fig{{m, 0}}
		if m.Kind == Latency {
			figs = nil
			for _, p := range Percentiles {
				figs = append(figs, Fig{m, p})
			}
		}
		for _, f := range figs {
			if keys[f.Key()] {
				t.Errorf("key %s twice", f.Key())
			}
			keys[f.Key()] = true
			back, ok := ParseKey(f.Key())
			if !ok || back.Metric != m || back.P != f.P {
				t.Errorf("%s does not parse back to %s p%d", f.Key(), m.Name, f.P)
			}
			if !strings.Contains(Keys(), m.Name) {
				t.Errorf("Keys() does not list %s", m.Name)
			}
		}
	}
	if _, ok := ParseKey("ttft_p96_ms"); ok {
		t.Error("ttft_p96_ms parsed")
	}
}

// TestTableFields: a row sets only the fields its kind reads — a latency
// metric is shown and reported by percentile (Columns, Report), any other
// by Column and Bench — so that no setting is silently ignored, and every
// percentile named is one a Summary has.
func TestTableFields(t *testing.T) {
	headers := map[string]string{}
	for _, m := range Table {
		if m.Kind == Latency {
			if m.Column != "" || m.Bench || m.BenchUnit != "" {
				t.Errorf("%s: a latency metric is shown and reported by percentile (Columns, Report), not Column/Bench/BenchUnit", m.Name)
			}
		} else {
			if len(m.Columns) > 0 || len(m.Report) > 0 {
				t.Errorf("%s: Columns and Report are percentiles of a latency metric; set Column or Bench", m.Name)
			}
			if m.BenchUnit == "" {
				t.Errorf("%s: no benchmark unit", m.Name)
			}
		}
		for _, p := range append(slices.Clone(m.Report), m.Columns...) {
			if !slices.Contains(Percentiles, p) {
				t.Errorf("%s: p%d is not one of %v", m.Name, p, Percentiles)
			}
		}
		if m.Column != "" {
			if other, dup := headers[m.Column]; dup {
				t.Errorf("%s: column header %q is %s's too", m.Name, m.Column, other)
			}
			headers[m.Column] = m.Name
		}
	}
}

func TestPct(t *testing.T) {
	for in, want := range map[float64]string{0.95: "95%", 0.21666666666666667: "21.7%", 0.995: "99.5%", 0.005: "0.5%", 1: "100%"} {
		if got := Pct(in); got != want {
			t.Errorf("Pct(%v) = %q, want %q", in, got, want)
		}
	}
}

// TestShown: a conditional figure's column (tool calls here) is shown
// when some row measured it, left out when none did; a figure without
// conditions (ttft) always is.
func TestShown(t *testing.T) {
	names := func(cols []Fig) []string {
		var out []string
		for _, c := range cols {
			out = append(out, c.Name+fmt.Sprint(c.P))
		}
		return out
	}
	chat := &stats.Stats{Attempted: 10}
	tools := &stats.Stats{Attempted: 10}
	tools.Quality.ToolChecked, tools.Quality.ToolValid = 10, 9
	none := names(Shown(Columns(), []*stats.Stats{chat}))
	both := names(Shown(Columns(), []*stats.Stats{chat, tools}))
	assert.Contains(t, none, "ttft95")
	assert.NotContains(t, none, "tool_valid0", "no row made a tool call")
	assert.Contains(t, both, "tool_valid0", "the tools row measured it")
	assert.Contains(t, both, "ttft95")
}
