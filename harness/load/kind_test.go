package load_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmsla/llmsla/harness/load"
)

func scalar(text string, line int) load.Value { return load.Value{Text: text, Line: line} }

func list(items ...load.Value) load.Value { return load.Value{Shape: load.List, Items: items, Line: 2} }

// TestKindLevels: each kind builds its levels from a value, and every
// mistake in it is said, placed by line and by the key within the value.
func TestKindLevels(t *testing.T) {
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
// search's step.
func TestKindAt(t *testing.T) {
	c, _ := load.KindOf("concurrency")
	r, _ := load.KindOf("rate")
	assert.Equal(t, load.Closed(8), c.At(8))
	assert.Equal(t, load.Open{Rate: 2.5}, r.At(2.5))
}
