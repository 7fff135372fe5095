package gate

import (
	"math"
	"testing"
)

func TestHolmAdjust(t *testing.T) {
	cases := map[string]struct {
		p, want []float64
	}{
		"empty":  {nil, []float64{}},
		"single": {[]float64{0.03}, []float64{0.03}},
		// Sorted: .005×4=.02, .01×3=.03, .03×2=.06, .04×1 raised to .06.
		"step-down keeps order of input": {
			p:    []float64{0.01, 0.04, 0.03, 0.005},
			want: []float64{0.03, 0.06, 0.06, 0.02},
		},
		// Bonferroni (p·3 ≤ .05) rejects only the first; Holm all three.
		"more powerful than Bonferroni": {
			p:    []float64{0.01, 0.02, 0.025},
			want: []float64{0.03, 0.04, 0.04},
		},
		"capped at 1": {
			p:    []float64{0.5, 0.9},
			want: []float64{1, 1},
		},
		"ties": {
			p:    []float64{0.02, 0.02},
			want: []float64{0.04, 0.04},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := HolmAdjust(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("HolmAdjust(%v) = %v, want %v", tc.p, got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Fatalf("HolmAdjust(%v) = %v, want %v", tc.p, got, tc.want)
				}
			}
		})
	}
}

func TestRunsNeeded(t *testing.T) {
	cases := map[string]struct {
		alpha float64
		want  int
	}{
		"alpha 0.05":         {0.05, 4},     // 2/C(8,4) = 0.029
		"alpha 0.05 over 8":  {0.05 / 8, 6}, // 2/C(10,5) = 0.0079 > 0.00625
		"alpha 0.05 over 28": {0.05 / 28, 7},
		"alpha 0.01":         {0.01, 5}, // 2/C(10,5) = 0.0079
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := runsNeeded(tc.alpha); got != tc.want {
				t.Errorf("runsNeeded(%g) = %d, want %d (minP(n,n) = %g)", tc.alpha, got, tc.want, minP(got, got))
			}
		})
	}
	if got, want := minP(4, 4), 2.0/70; math.Abs(got-want) > 1e-12 {
		t.Errorf("minP(4, 4) = %g, want %g", got, want)
	}
}

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
