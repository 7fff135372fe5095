package gate

import (
	"testing"
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
