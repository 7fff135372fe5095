package gate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/recording"
)

// withTimeout runs fn and fails the test if it has not returned within d:
// before the value checks, a NaN made benchmath loop forever, and a test
// of that must fail, not hang until go test's own timeout.
func withTimeout(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

// The inputs of issue 10: each is unusable (exit 2) and the message names
// the file and line, or the list of what is missing, and what to do.
func TestGateRejectsBrokenInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 0))
	good := genBench(rng, twoEndpoints(10, nil))
	lines := strings.SplitAfter(good, "\n")
	// The first result line is line 8: 3 header lines, 4 Unit lines.
	first := lines[7]
	if !strings.HasPrefix(first, "BenchmarkChat/endpoint=prod") {
		t.Fatalf("line 8 is %q, want the first result", first)
	}
	replaceValue := func(unit, with string) string {
		fields := strings.Split(strings.TrimSuffix(first, "\n"), "\t")
		for i, f := range fields {
			if strings.HasSuffix(f, " "+unit) {
				fields[i] = with + " " + unit
			}
		}
		return strings.Replace(good, first, strings.Join(fields, "\t")+"\n", 1)
	}
	body := strings.Join(lines[:len(lines)-3], "") // without PASS, ok and the final ""
	cases := map[string]struct {
		new  string
		want []string
	}{
		"NaN":               {new: replaceValue("ttft-p95-ms", "NaN"), want: []string{"new.txt:8:", "NaN ttft-p95-ms is not a number"}},
		"+Inf":              {new: replaceValue("total-p95-ms", "+Inf"), want: []string{"new.txt:8:", "+Inf total-p95-ms is not a number"}},
		"negative latency":  {new: replaceValue("ttft-p95-ms", "-12.5"), want: []string{"new.txt:8:", "-12.5 ttft-p95-ms is negative"}},
		"negative rate":     {new: replaceValue("out-tok/s", "-1"), want: []string{"new.txt:8:", "is negative"}},
		"percent above 100": {new: replaceValue("accuracy-%", "140"), want: []string{"new.txt:8:", "140 accuracy-% is above 100"}},
		"half last line": {
			// head -c: the last result cut inside its last value.
			new:  body[:len(body)-4],
			want: []string{"new.txt:" + strconv.Itoa(len(lines)-3) + ": the last line has no newline", "cut short"},
		},
		"concatenated with itself": {
			new:  good + good,
			want: []string{"new.txt:" + strconv.Itoa(len(lines)) + ": the header of line 1 starts again here", "double n"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			withTimeout(t, 20*time.Second, func() {
				_, err = Gate(recording.Stream("base.txt", strings.NewReader(good)), recording.Stream("new.txt", strings.NewReader(tc.new)), Options{})
			})
			if !errors.Is(err, recording.ErrUnusable) {
				t.Fatalf("err = %v, want ErrUnusable", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// Lines that repeat are not a copy of the file: a benchmark whose figures
// are constant has every run the same line, and a discrete figure repeats
// by nature (issue 23, item 10: ten runs of max-rps on a bisection's grid
// were refused as "concatenated with itself?").
func TestGateConstantRunsAreNotRepeats(t *testing.T) {
	run := strings.Repeat("BenchmarkChat/endpoint=a-2 20 0 err-% 100 accuracy-%\n", 10)
	varied := "Unit ttft-p95-ms better=lower\n"
	for i := range 10 {
		varied += "BenchmarkChat/endpoint=a-2 20 " + strconv.Itoa(100+i) + " ttft-p95-ms\n"
	}
	grid := "goos: linux\ngoarch: amd64\npkg: github.com/llmsla/llmsla/suites\n"
	for _, rps := range []int{80, 72, 72, 80, 72, 80, 72, 72, 80, 80} {
		grid += "BenchmarkCapacity/endpoint=sim-2 1 " + strconv.Itoa(rps) + " max-rps\n"
	}
	for name, text := range map[string]string{"constant": run, "varied": varied, "max-rps on a grid": grid} {
		if _, err := Gate(recording.Stream("base", strings.NewReader(text)), recording.Stream("new", strings.NewReader(text)), Options{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestGateAlpha(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	base, cand := genBench(rng, twoEndpoints(10, nil)), genBench(rng, twoEndpoints(10, nil))
	for _, alpha := range []float64{math.NaN(), -0.05, 0.5, 0.999, 1, 2} {
		_, err := Gate(recording.Stream("base", strings.NewReader(base)), recording.Stream("new", strings.NewReader(cand)), Options{Alpha: alpha})
		if err == nil || !strings.Contains(err.Error(), "not a significance level") {
			t.Errorf("alpha %g: err = %v, want a refusal", alpha, err)
		}
	}
	rep, err := Gate(recording.Stream("base", strings.NewReader(base)), recording.Stream("new", strings.NewReader(cand)), Options{Alpha: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "alpha 0.3: up to 30% of unchanged candidates may be blocked") {
		t.Errorf("alpha 0.3: warnings lack the reason:\n%s", w)
	}
}

// A candidate that lacks benchmarks of the base was not measured on them:
// that fails, unless the comparison is narrowed on purpose.
func TestGateMissingBenchmarks(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	base := genBench(rng, twoEndpoints(10, nil))
	// The candidate measured only prod: canary's lines are gone, as when a
	// run is interrupted after the first endpoint.
	var kept []string
	for _, l := range strings.SplitAfter(genBench(rng, twoEndpoints(10, nil)), "\n") {
		if !strings.Contains(l, "endpoint=canary") {
			kept = append(kept, l)
		}
	}
	cand := strings.Join(kept, "")
	gate := func(opts Options) (*Report, error) {
		return Gate(recording.Stream("base.txt", strings.NewReader(base)), recording.Stream("new.txt", strings.NewReader(cand)), opts)
	}
	_, err := gate(Options{})
	if !errors.Is(err, recording.ErrUnusable) {
		t.Fatalf("err = %v, want ErrUnusable", err)
	}
	for _, w := range []string{"1 of the 2 benchmarks of base.txt are missing from new.txt", "Chat/endpoint=canary/concurrency=5", "-filter", "-allow-missing"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q:\n%v", w, err)
		}
	}
	if _, err := gate(Options{Filter: "/endpoint:prod"}); err != nil {
		t.Errorf("-filter /endpoint:prod: %v", err)
	}
	rep, err := gate(Options{AllowMissing: true})
	if err != nil {
		t.Fatalf("-allow-missing: %v", err)
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "Chat/endpoint=canary/concurrency=5 only in base.txt; not compared (-allow-missing)") {
		t.Errorf("-allow-missing: warnings lack the benchmark:\n%s", w)
	}
}

// A figure that every base run had and no candidate run has is a check
// that stopped running: it fails. A figure only some runs have (itl of
// one-token answers) is listed as not judged, as before.
func TestGateVanishedAndSparseFigures(t *testing.T) {
	line := func(ttft int, extra string) string {
		return "BenchmarkChat/endpoint=a-2 20 " + strconv.Itoa(ttft) + " ttft-p95-ms" + extra + "\n"
	}
	var base, cand strings.Builder
	base.WriteString("Unit ttft-p95-ms better=lower\nUnit json-valid-% better=higher\nUnit itl-p95-ms better=lower\n")
	cand.WriteString("Unit ttft-p95-ms better=lower\n")
	for i := range 10 {
		extra := " 100 json-valid-%"
		if i < 2 {
			extra += " 3 itl-p95-ms"
		}
		base.WriteString(line(100+i, extra))
		extra = ""
		if i < 2 {
			extra = " 4 itl-p95-ms"
		}
		cand.WriteString(line(100+i, extra))
	}
	gate := func(opts Options) *Report {
		rep, err := Gate(recording.Stream("base", strings.NewReader(base.String())), recording.Stream("new", strings.NewReader(cand.String())), opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := gate(Options{})
	if !rep.Failed() || len(rep.Vanished) != 1 || rep.Vanished[0].Unit != "json-valid-%" {
		t.Errorf("Failed=%v Vanished=%+v, want json-valid-%% vanished", rep.Failed(), rep.Vanished)
	}
	if len(rep.NotJudged) != 1 || rep.NotJudged[0].Unit != "itl-p95-ms" {
		t.Errorf("NotJudged = %+v, want itl-p95-ms", rep.NotJudged)
	}
	var out strings.Builder
	rep.WriteText(&out)
	if !strings.Contains(out.String(), "VANISHED   Chat/endpoint=a json-valid-%: in all 10 runs of base, in none of the 10 of new") {
		t.Errorf("report:\n%s", out.String())
	}
	if rep := gate(Options{AllowMissing: true}); rep.Failed() {
		t.Errorf("-allow-missing: failed")
	}
}

// A benchmark with too few runs on a side, every figure in each of them,
// is not a sparse figure: the candidate was measured too little, and the
// gate cannot see its regression. It is unusable input, not "not judged"
// (which let a candidate 9× slower on it pass).
func TestGateTooFewRunsOfOneBenchmark(t *testing.T) {
	var base, cand strings.Builder
	for _, b := range []*strings.Builder{&base, &cand} {
		b.WriteString("Unit ttft-p95-ms better=lower\n")
	}
	for i := range 10 {
		fmt.Fprintf(&base, "BenchmarkA-2 20 %d ttft-p95-ms\nBenchmarkB-2 20 %d ttft-p95-ms\n", 100+i, 100+i)
		fmt.Fprintf(&cand, "BenchmarkA-2 20 %d ttft-p95-ms\n", 100+i)
	}
	cand.WriteString("BenchmarkB-2 20 900 ttft-p95-ms\n")
	rep, err := Gate(recording.Stream("base", strings.NewReader(base.String())), recording.Stream("new", strings.NewReader(cand.String())), Options{})
	if !errors.Is(err, recording.ErrUnusable) {
		t.Fatalf("err = %v, report %+v; want ErrUnusable", err, rep)
	}
	for _, w := range []string{"B has 10 runs in base and 1 in new", "need ≥ 4 runs per side", "-count"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q:\n%v", w, err)
		}
	}
}

// Without "Unit … better=" lines, a unit's direction is the metric
// table's: drift-% is lower-is-better (though a *-% unit), max-rps and
// prefill-ms/ktok are known; only a unit of neither stays unknown.
func TestGateDirectionFromMetricTable(t *testing.T) {
	var base, cand strings.Builder
	for i := range 10 {
		fmt.Fprintf(&base, "BenchmarkSoak-2 1 %d drift-%% %d max-rps %d prefill-ms/ktok\n", 5+i%3, 100+i, 40+i)
		fmt.Fprintf(&cand, "BenchmarkSoak-2 1 %d drift-%% %d max-rps %d prefill-ms/ktok\n", 50+i%3, 50+i, 80+i)
	}
	rep, err := Gate(recording.Stream("base", strings.NewReader(base.String())), recording.Stream("new", strings.NewReader(cand.String())), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := units(rep.Regressions); !sameSet(got, []string{"drift-%", "max-rps", "prefill-ms/ktok"}) {
		t.Errorf("regressions %v, want drift-%%, max-rps and prefill-ms/ktok; warnings:\n%s", got, strings.Join(rep.Warnings, "\n"))
	}
	for _, u := range []struct {
		unit string
		want int
	}{{"drift-%", -1}, {"max-rps", 1}, {"max-concurrency", 1}, {"prefill-ms/ktok", -1}, {"accuracy-%", 1}, {"err-%", -1}, {"widgets", 0}} {
		if got := direction(nil, u.unit); got != u.want {
			t.Errorf("direction(%s) = %d, want %d", u.unit, got, u.want)
		}
	}
}
