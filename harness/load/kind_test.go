package load_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/load"
)

func scalar(text string, line int) load.Value { return load.Value{Text: text, Line: line} }

func list(items ...load.Value) load.Value { return load.Value{Shape: load.List, Items: items, Line: 2} }

// mapping is {k: v, …} from pairs, one key a line from line 10.
func mapping(pairs ...string) load.Value {
	v := load.Value{Shape: load.Map, Line: 10}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Map = append(v.Map, load.Field{Key: pairs[i], Value: scalar(pairs[i+1], 10+i/2)})
	}
	return v
}

// TestKindLevels: each kind builds its levels from a value, and every
// mistake in it is said, placed by line and by the key within the value.
func TestKindLevels(t *testing.T) {
	const rampWant = "(e.g. {from: 1, to: 50, over: 2m, shape: linear})"
	cases := map[string]struct {
		key  string
		v    load.Value
		want []load.Pacer
		errs []string // line: key: message
	}{
		"one concurrency": {"concurrency", scalar("4", 3), []load.Pacer{load.Closed(4)}, nil},
		"concurrency 0":   {"concurrency", list(scalar("1", 3), scalar("0", 4)), nil, []string{`4: "0" is not a whole number from 1 to 100000`}},
		"rates":           {"rate", list(scalar("2", 3), scalar("0.5", 4)), []load.Pacer{load.Open{Rate: 2}, load.Open{Rate: 0.5}}, nil},
		"bad rates, each said": {"rate", list(scalar("0", 3), scalar("fast", 4), list()), nil, []string{
			`3: "0" is not a rate (want requests per second, > 0 and ≤ 1000000)`,
			`4: "fast" is not a rate (want requests per second, > 0 and ≤ 1000000)`,
			`2: a list is not a rate (want requests per second, > 0 and ≤ 1000000)`}},
		"no rates": {"rate", list(), nil, []string{"2: want a value or a list of values, e.g. [2, 5, 10]"}},
		"a ramp": {"ramp", mapping("from", "1", "to", "50", "over", "2m"),
			[]load.Pacer{load.Ramp{From: 1, To: 50, Over: 2 * time.Minute}}, nil},
		"ramps": {"ramp", list(mapping("from", "1", "to", "50", "over", "2m", "shape", "exponential"), mapping("from", "50", "to", "1", "over", "30s")),
			[]load.Pacer{load.Ramp{From: 1, To: 50, Over: 2 * time.Minute, Shape: load.Exponential}, load.Ramp{From: 50, To: 1, Over: 30 * time.Second}}, nil},
		"ramp mistakes": {"ramp", mapping("from", "0", "to", "5", "over", "soon", "shape", "steep", "step", "1"), nil, []string{
			`14: step: unknown key (allowed: from, to, over, shape)`,
			`10: from: "0" is not a rate (want requests per second, > 0 and ≤ 1000000)`,
			`12: over: "soon" is not a duration > 0 (e.g. 90s, 2m)`,
			`13: shape: "steep" is not a ramp shape (allowed: linear, exponential)`}},
		"ramp missing keys": {"ramp", mapping("from", "1"), nil, []string{"10: to: missing " + rampWant, "10: over: missing " + rampWant}},
		"ramp key twice":    {"ramp", mapping("from", "1", "to", "5", "over", "1m", "to", "6"), nil, []string{"13: to: repeated key: write it once"}},
		"ramp of a number":  {"ramp", scalar("5", 3), nil, []string{"3: want a mapping of keys to values, e.g. {from: …, to: …, over: …, shape: …}"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k, ok := load.KindOf(tc.key)
			if !ok {
				t.Fatalf("no kind %q", tc.key)
			}
			got, err := k.Levels(tc.v)
			var errs []string
			for _, e := range load.ValueErrors(err) {
				errs = append(errs, fmt.Sprintf("%d: %s", e.Line, e))
			}
			assert.Equal(t, tc.errs, errs)
			if tc.errs == nil {
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

// TestKindAt: a kind that is one number gives the level of a capacity
// search's step; a ramp is not one number.
func TestKindAt(t *testing.T) {
	c, _ := load.KindOf("concurrency")
	r, _ := load.KindOf("rate")
	ramp, _ := load.KindOf("ramp")
	assert.Equal(t, load.Closed(8), c.At(8))
	assert.Equal(t, load.Open{Rate: 2.5}, r.At(2.5))
	assert.Nil(t, ramp.At)
}
