package gate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/recording"
)

func TestPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(400, 7))
	w := newWorld(rng)
	txt, err := w.record(rng, synthSide{runs: 10, n: 20, label: "b"}).write(t.TempDir(), "base")
	if err != nil {
		t.Fatal(err)
	}
	base := recording.File(txt)
	// What the gate prints it can see, comparing base with itself.
	rep, err := Gate(base, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mde := map[string]MDE{}
	for _, s := range rep.Sensitivity {
		if s.Group == "chat/endpoint=sim" {
			for _, m := range s.MDE {
				mde[m.Unit] = m
			}
		}
	}
	plan := func(unit string, change Tolerance) PlanLine {
		t.Helper()
		lines, err := Plan(base, unit, change, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if l.Group == "chat/endpoint=sim" {
				return l
			}
		}
		t.Fatalf("no plan for chat: %+v", lines)
		return PlanLine{}
	}
	// A change of the printed MDE needs about the requests there are.
	for _, unit := range []string{"ttft-p50-ms", "ttft-p95-ms"} {
		m := mde[unit]
		l := plan(unit, Tolerance{Rel: m.Change})
		t.Logf("%s: MDE %s; a change of it needs %d requests a side, have %d", unit, m, l.Need, l.Have)
		if r := float64(l.Need) / float64(l.Have); l.Never != "" || math.Abs(math.Log(r)) > math.Log(1.5) {
			t.Errorf("%s: a change of the MDE (%s) needs %d requests a side (%s), have %d: want within a factor 1.5", unit, m, l.Need, l.Never, l.Have)
		}
	}
	// Without a tolerance the statistics decide, and the requests needed
	// go as the inverse square of the change: twice the MDE, a quarter.
	stat := mde["ttft-p50-ms"].Stat
	lines, err := Plan(base, "ttft-p50-ms", Tolerance{Rel: 2 * stat}, Options{Tolerance: map[string]Tolerance{"*": {}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l.Group != "chat/endpoint=sim" {
			continue
		}
		t.Logf("ttft-p50-ms %+.3g%% without tolerance: needs %d, have %d", 200*stat, l.Need, l.Have)
		if r := 4 * float64(l.Need) / float64(l.Have); math.Abs(math.Log(r)) > math.Log(1.5) {
			t.Errorf("twice the MDE of the statistics alone needs %d requests a side, have %d: want about a quarter", l.Need, l.Have)
		}
	}
	// Plan and the MDEs share their model of power: with no tolerance, a
	// change of the printed MDE needs the requests there are, to one.
	noTol := Options{Tolerance: map[string]Tolerance{"*": {}}}
	rep, err = Gate(base, base, noTol)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Sensitivity {
		for _, m := range s.MDE {
			if !m.Relative || math.IsInf(m.Change, 1) {
				continue
			}
			lines, err := Plan(base, m.Unit, Tolerance{Rel: m.Change}, noTol)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				if l.Group == s.Group && (l.Never != "" || l.Need < l.Have-1 || l.Need > l.Have+1) {
					t.Errorf("%s %s without tolerance: a change of the MDE (%s) needs %d requests a side (%s), have %d", s.Group, m.Unit, m, l.Need, l.Never, l.Have)
				}
			}
		}
	}
	// Within the tolerance: never.
	if l := plan("ttft-p95-ms", Tolerance{Rel: 0.05}); l.Never == "" || !strings.Contains(l.Never, "within the tolerance") {
		t.Errorf("+5%% on ttft-p95-ms: %+v, want never, within the tolerance", l)
	}
	// Accuracy: a 5-point drop is two of chat's 40 cases.
	if l := plan("accuracy-%", Tolerance{Abs: 5}); l.Never != "" || l.Need > l.Have {
		t.Errorf("accuracy -5 points: %+v, want fewer requests than the recording has (its MDE is %s)", l, mde["accuracy-%"])
	}
	if _, err := Plan(base, "out-tok/s", Tolerance{Rel: 0.1}, Options{}); err == nil || !strings.Contains(err.Error(), "judged on requests") {
		t.Errorf("out-tok/s: err = %v, want a refusal naming what plan covers", err)
	}
}
