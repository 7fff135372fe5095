package harness

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Threshold is one SLA objective, parsed once from its config key (k6-style:
// the objective is data, checked against a measured figure). A latency
// threshold is an upper bound on a percentile in milliseconds; a rate
// threshold bounds a fraction in [0, 1].
type Threshold struct {
	Key    string  // as written in the config, e.g. "ttft_p95_ms"
	Metric string  // ttft, ttfa, total, tpot, itl, error_rate, json_valid, schema_valid, accuracy, good
	P      int     // percentile for latency metrics
	Max    bool    // true: the figure must be ≤ Value; false: ≥ Value
	Value  float64 // ms for latencies, a fraction for rates
}

var (
	latencyKey = regexp.MustCompile(`^(ttft|ttfa|total|tpot|itl)_p(50|90|95|99)_ms$`)
	rateKeys   = map[string]bool{ // key → upper bound?
		"error_rate_max":   true,
		"json_valid_min":   false,
		"schema_valid_min": false,
		"accuracy_min":     false,
		"good_min":         false,
	}
)

// ThresholdKeys describes the allowed keys, for error messages.
const ThresholdKeys = "<ttft|ttfa|total|tpot|itl>_p<50|90|95|99>_ms, error_rate_max, json_valid_min, schema_valid_min, accuracy_min, good_min"

// ParseThreshold parses one config key and value.
func ParseThreshold(key string, value float64) (Threshold, error) {
	if math.IsNaN(value) || math.IsInf(value, 0) || value < 0 {
		return Threshold{}, fmt.Errorf("%s: %v is not a threshold (want a number ≥ 0)", key, value)
	}
	if m := latencyKey.FindStringSubmatch(key); m != nil {
		p, _ := strconv.Atoi(m[2])
		return Threshold{Key: key, Metric: m[1], P: p, Max: true, Value: value}, nil
	}
	max, ok := rateKeys[key]
	if !ok {
		return Threshold{}, fmt.Errorf("%s: unknown metric (allowed: %s)", key, ThresholdKeys)
	}
	if value > 1 {
		return Threshold{}, fmt.Errorf("%s: %v is not a fraction (want 0 to 1, e.g. 0.99)", key, value)
	}
	metric := key[:strings.LastIndexByte(key, '_')]
	return Threshold{Key: key, Metric: metric, Max: max, Value: value}, nil
}

// SLA is the set of objectives of one scenario on one endpoint.
type SLA []Threshold

// ParseSLA parses a key → value map into thresholds, in key order.
func ParseSLA(m map[string]float64) (SLA, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sla SLA
	for _, k := range keys {
		th, err := ParseThreshold(k, m[k])
		if err != nil {
			return nil, err
		}
		sla = append(sla, th)
	}
	return sla, nil
}

// Limit returns the per-request latency limit the SLA sets on metric (its
// tightest percentile target), used to call one request good or not.
func (s SLA) Limit(metric string) (ms float64, ok bool) {
	for _, th := range s {
		if th.Metric == metric && th.P != 0 && (!ok || th.Value < ms) {
			ms, ok = th.Value, true
		}
	}
	return ms, ok
}

// Violation is a threshold a run did not meet.
type Violation struct {
	Threshold Threshold
	Got       float64
	N         int
	Detail    string // e.g. the error counts by kind
}

// String is one line a user reads in a failed test or a verdict table:
// "ttft p95 712 ms > 600 ms (n=40)".
func (v Violation) String() string {
	th := v.Threshold
	if th.P != 0 {
		return fmt.Sprintf("%s p%d %s ms > %s ms (n=%d)", th.Metric, th.P, num(v.Got), strconv.FormatFloat(th.Value, 'f', -1, 64), v.N)
	}
	if math.IsNaN(v.Got) {
		return fmt.Sprintf("%s not measured, %s %s (n=%d)", strings.ReplaceAll(th.Metric, "_", " "), op(th.Max), pct(th.Value), v.N)
	}
	s := fmt.Sprintf("%s %s %s %s (n=%d", strings.ReplaceAll(th.Metric, "_", " "), pct(v.Got), opFail(th.Max), pct(th.Value), v.N)
	if v.Detail != "" {
		s += "; " + v.Detail
	}
	return s + ")"
}

func op(max bool) string {
	if max {
		return "want ≤"
	}
	return "want ≥"
}

func opFail(max bool) string {
	if max {
		return ">"
	}
	return "<"
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', -1, 64) + "%" }

// Check returns the thresholds st does not meet. A latency percentile with
// no successful request is not measured and so not met.
func (s SLA) Check(st *Stats) []Violation {
	var out []Violation
	for _, th := range s {
		got, n := st.Figure(th)
		v := Violation{Threshold: th, Got: got, N: n}
		if th.Metric == "error_rate" {
			v.Detail = st.ErrorKinds()
		}
		switch {
		case math.IsNaN(got):
			out = append(out, v)
		case th.Max && got > th.Value, !th.Max && got < th.Value:
			out = append(out, v)
		}
	}
	return out
}
