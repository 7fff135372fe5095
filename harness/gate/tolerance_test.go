package gate

import (
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/recording"
)

func TestParseTolerance(t *testing.T) {
	cases := map[string]struct {
		in      string
		unit    string
		want    Tolerance
		wantErr bool
	}{
		"relative":     {in: "ttft-p95-ms=15%", unit: "ttft-p95-ms", want: Tolerance{Rel: 0.15}},
		"absolute":     {in: "accuracy-%=2", unit: "accuracy-%", want: Tolerance{Abs: 2}},
		"glob":         {in: "ttft-*-ms=20%", unit: "ttft-*-ms", want: Tolerance{Rel: 0.2}},
		"no value":     {in: "ttft-p95-ms=", wantErr: true},
		"no unit":      {in: "=10%", wantErr: true},
		"not a number": {in: "ttft-p95-ms=ten", wantErr: true},
		"negative":     {in: "ttft-p95-ms=-1", wantErr: true},
		"bad glob":     {in: "ttft-[=1", wantErr: true},
		// Issue 24, item 6: a misspelt key left every figure at the
		// default, silently.
		"misspelt unit":       {in: "ttft-p95-msec=5%", wantErr: true},
		"glob matching none":  {in: "ttfx-*=5%", wantErr: true},
		"glob matching units": {in: "*-%=2", unit: "*-%", want: Tolerance{Abs: 2}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			unit, tol, err := ParseTolerance(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseTolerance(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if !tc.wantErr && (unit != tc.unit || tol != tc.want) {
				t.Errorf("ParseTolerance(%q) = %q, %+v; want %q, %+v", tc.in, unit, tol, tc.unit, tc.want)
			}
		})
	}
}

// A tolerance key that matches no unit is refused wherever it comes
// from: the flag and the SLA file parse it with ParseTolerance, a program
// sets Options.Tolerance; the error lists the units.
func TestToleranceKeyMustMatchAUnit(t *testing.T) {
	err := CheckToleranceKey("ttft-p95-msec")
	for _, w := range []string{`"ttft-p95-msec" matches no unit`, "ttft-p95-ms, ttft-p99-ms", "accuracy-%"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("CheckToleranceKey(ttft-p95-msec) = %v, want an error containing %q", err, w)
		}
	}
	for _, key := range []string{"ttft-p95-ms", "*-ms", "*", "*/s", "max-rps"} {
		if err := CheckToleranceKey(key); err != nil {
			t.Errorf("CheckToleranceKey(%q) = %v", key, err)
		}
	}
	base := recording.Stream("base", strings.NewReader(""))
	_, err = Gate(base, base, Options{Tolerance: map[string]Tolerance{"ttft-p95-msec": {Rel: 0.05}}})
	if err == nil || !strings.Contains(err.Error(), `tolerance: "ttft-p95-msec" matches no unit`) {
		t.Errorf("Gate with a misspelt tolerance key: err = %v, want a refusal before reading", err)
	}
}

func TestToleranceFor(t *testing.T) {
	over := map[string]Tolerance{
		"ttft-*-ms":   {Rel: 0.2},
		"ttft-p99-ms": {Rel: 0.3},
		"*":           {Abs: 5},
	}
	cases := map[string]struct {
		unit string
		over map[string]Tolerance
		want Tolerance
	}{
		"default latency":        {unit: "total-p95-ms", want: Tolerance{Rel: 0.1, Abs: 1}},
		"default throughput":     {unit: "out-tok/s", want: Tolerance{Rel: 0.1}},
		"default percent":        {unit: "accuracy-%", want: Tolerance{Abs: 1}},
		"unknown unit, no slack": {unit: "widgets", want: Tolerance{}},
		"exact beats glob":       {unit: "ttft-p99-ms", over: over, want: Tolerance{Rel: 0.3}},
		"longest glob wins":      {unit: "ttft-p95-ms", over: over, want: Tolerance{Rel: 0.2}},
		"override beats default": {unit: "accuracy-%", over: over, want: Tolerance{Abs: 5}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := toleranceFor(tc.unit, tc.over); got != tc.want {
				t.Errorf("toleranceFor(%q) = %+v, want %+v", tc.unit, got, tc.want)
			}
		})
	}
}

func TestToleranceExceeded(t *testing.T) {
	cases := map[string]struct {
		tol      Tolerance
		old, new float64
		want     bool
	}{
		"within 10%":            {Tolerance{Rel: 0.1}, 100, 109, false},
		"beyond 10%":            {Tolerance{Rel: 0.1}, 100, 111, true},
		"beyond, downwards":     {Tolerance{Rel: 0.1}, 100, 89, true},
		"within 1 point":        {Tolerance{Abs: 1}, 90, 89.5, false},
		"beyond 1 point":        {Tolerance{Abs: 1}, 90, 85, true},
		"both must be beyond":   {Tolerance{Rel: 0.1, Abs: 50}, 100, 120, false},
		"zero means any change": {Tolerance{}, 100, 100.001, true},
		"no change":             {Tolerance{}, 100, 100, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.tol.exceeded(tc.old, tc.new); got != tc.want {
				t.Errorf("%+v.exceeded(%g, %g) = %v, want %v", tc.tol, tc.old, tc.new, got, tc.want)
			}
		})
	}
}
