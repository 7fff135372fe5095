package gate

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/recording"
)

// healthBench is a results file of 10 runs of one benchmark whose TTFT
// p95 is ttft ms and whose client was f (nil: recorded without the
// client's figures).
func healthBench(ttft float64, f *health.Figures) string {
	var b strings.Builder
	b.WriteString("Unit ttft-p95-ms better=lower\n")
	for _, u := range health.Units {
		fmt.Fprintf(&b, "Unit %s better=%s\n", u.Name, u.Better())
	}
	for i := range 10 {
		fmt.Fprintf(&b, "BenchmarkChat/endpoint=sim/concurrency=1-2 20 0 ns/op %g ttft-p95-ms", ttft+float64(i%3))
		if f != nil {
			for _, u := range health.Units {
				fmt.Fprintf(&b, " %g %s", u.Of(*f), u.Name)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestGateRefusesBusyClient: a side recorded by a client beyond its
// limits, or two sides whose clients differ beyond the tolerance, are
// refused before any figure (ErrUnusable, naming the side and the
// figure), even when the TTFT moved by +25% — the false regression of a
// busy runner; -allow-busy compares, saying so; two clean sides are
// compared, and a side without the figures is said. Fails on the code
// before compareHealth: the busy side's +25% is a regression, exit 1.
func TestGateRefusesBusyClient(t *testing.T) {
	clean := &health.Figures{Wakes: 2000, LateP50: 0.1, LateP99: 0.4, LateMax: 2, CPU: 0.4, Cores: 2, Load: 0.5}
	busy := &health.Figures{Wakes: 2000, LateP50: 3, LateP99: 14, LateMax: 80, CPU: 1.2, Cores: 2, Load: 4}
	apart := &health.Figures{Wakes: 2000, LateP50: 1.5, LateP99: 3.9, LateMax: 20, CPU: 0.6, Cores: 2, Load: 2}
	gateOf := func(base, new string, opts Options) (*Report, error) {
		return Gate(recording.Stream("base.txt", strings.NewReader(base)), recording.Stream("new.txt", strings.NewReader(new)), opts)
	}
	cases := map[string]struct {
		base, new *health.Figures
		want      string
	}{
		"new busy":              {clean, busy, "NEW new.txt Chat/endpoint=sim/concurrency=1: client-bound: client-late-p50-ms 3"},
		"base busy":             {busy, clean, "BASE base.txt Chat/endpoint=sim/concurrency=1: client-bound: client-late-p50-ms 3"},
		"apart":                 {clean, apart, "NEW new.txt Chat/endpoint=sim/concurrency=1: client-bound: the two runs' clients differ: client-late-p50-ms 0.1 vs 1.5"},
		"busy, base unrecorded": {nil, busy, "NEW new.txt Chat/endpoint=sim/concurrency=1: client-bound: client-late-p50-ms"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := gateOf(healthBench(100, tc.base), healthBench(125, tc.new), Options{})
			if !errors.Is(err, recording.ErrUnusable) || !errors.Is(err, health.ErrBusy) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrUnusable and ErrBusy saying %q", err, tc.want)
			}
			rep, err := gateOf(healthBench(100, tc.base), healthBench(125, tc.new), Options{AllowBusy: true})
			if err != nil {
				t.Fatal(err)
			}
			if countContaining(rep.Warnings, "-allow-busy") != 1 {
				t.Errorf("-allow-busy: warnings %q, want one saying it", rep.Warnings)
			}
		})
	}
	rep, err := gateOf(healthBench(100, clean), healthBench(125, clean), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() {
		t.Error("two clean clients, TTFT +25%: want the regression")
	}
	for _, f := range append(append(rep.Regressions, rep.Improvements...), rep.NotJudged...) {
		if health.IsUnit(f.Unit) {
			t.Errorf("a client's figure %s gated as the endpoint's", f.Unit)
		}
	}
	rep, err = gateOf(healthBench(100, nil), healthBench(100, clean), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if countContaining(rep.Warnings, "BASE base.txt was recorded without the client's health figures") != 1 {
		t.Errorf("warnings %q, want one naming the side recorded without client figures", rep.Warnings)
	}
}
