package load

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is a kind of load level as a scenario of sla.yaml writes it: its key
// (concurrency:, rate:, ramp:) and how the key's value becomes levels.
// Package config reads every registered key, so that a new load shape is
// one file: its pacer and the Register call of its kind.
type Kind struct {
	Key string
	// Example is a value of the key, as errors and docs show it.
	Example string
	// Levels builds the key's levels from its value. Open-loop levels take
	// the scenario's arrivals afterwards (OpenLoop). Errors are placed in
	// the value (Value.Errorf; several joined with errors.Join), so that
	// config names their file and line.
	Levels func(v Value) ([]Pacer, error)
	// At is the level at load x, for a capacity search by this kind
	// (capacity: {by: rate}); nil when the kind is not one number.
	At func(x float64) Pacer
}

// MaxWorkers is the most requests a level keeps in flight (concurrency,
// max_concurrency): a slip of the keyboard is an error, not a million
// goroutines.
const MaxWorkers = 100_000

// kinds are the registered kinds, in the order a scenario's levels run:
// the closed and open loops every scenario knows, then the others in the
// order their files register them.
var kinds = []Kind{concurrencyKind, rateKind}

// Register adds a kind of load level, from an init function of the file
// that defines its pacer. A key registered twice, or a kind that cannot
// build levels, is a programming error: it panics when the program starts.
func Register(k Kind) {
	if k.Key == "" || k.Levels == nil {
		panic("load.Register: a kind needs a key and a Levels func")
	}
	if _, dup := KindOf(k.Key); dup {
		panic("load.Register: kind " + k.Key + " registered twice")
	}
	kinds = append(kinds, k)
}

// Kinds returns the registered kinds in the order their levels run.
func Kinds() []Kind { return slices.Clone(kinds) }

// KindOf returns the kind registered under key.
func KindOf(key string) (Kind, bool) {
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Key == key })
	if i < 0 {
		return Kind{}, false
	}
	return kinds[i], true
}

// Shape is what a Value holds.
type Shape int

// A Value holds one scalar, a list of values, or a mapping of keys to
// values.
const (
	Scalar Shape = iota
	List
	Map
)

// Value is a load key's value as config decoded it from sla.yaml (or a
// program wrote it): a scalar's text, a list's items or a mapping's fields,
// each with the line it came from, so that an error can name its place.
type Value struct {
	Shape Shape
	Text  string  // a scalar
	Items []Value // a list
	Map   []Field // a mapping, in the order written
	Line  int
	// Key is where the value is in the key's value: "" for the value
	// itself, "over" for a field of a mapping (set by Mapping).
	Key string
}

// Field is one key of a mapping Value.
type Field struct {
	Key   string
	Value Value
}

// ValueError is a mistake in a load key's value, placed by line and by the
// key within the value ("over"), for config to prefix with the file and
// the full key.
type ValueError struct {
	Line int
	Key  string
	Msg  string
}

func (e *ValueError) Error() string {
	if e.Key == "" {
		return e.Msg
	}
	return e.Key + ": " + e.Msg
}

// ValueErrors lists the mistakes in err, a Kind's Levels error: every
// ValueError however deeply joined, and any other error as one without a
// place (Line 0: the key's own line).
func ValueErrors(err error) []*ValueError {
	if err == nil {
		return nil
	}
	if ve, ok := err.(*ValueError); ok {
		return []*ValueError{ve}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*ValueError
		for _, e := range j.Unwrap() {
			out = append(out, ValueErrors(e)...)
		}
		return out
	}
	return []*ValueError{{Msg: err.Error()}}
}

// Errorf is a ValueError at v.
func (v Value) Errorf(format string, args ...any) error {
	return &ValueError{Line: v.Line, Key: v.Key, Msg: fmt.Sprintf(format, args...)}
}

// Each is a list's items, or a lone value as a list of one (rate: 5 is
// rate: [5]); example shows what is allowed.
func (v Value) Each(example string) ([]Value, error) {
	switch {
	case v.Shape != List:
		return []Value{v}, nil
	case len(v.Items) == 0:
		return nil, v.Errorf("want a value or a list of values, e.g. %s", example)
	}
	return v.Items, nil
}

// String is how an error quotes the value: a scalar's text, quoted, or
// what else it is.
func (v Value) String() string {
	switch v.Shape {
	case List:
		return "a list"
	case Map:
		return "a mapping"
	}
	return strconv.Quote(v.Text)
}

// Number is a scalar's number.
func (v Value) Number() (float64, error) {
	f, err := strconv.ParseFloat(v.Text, 64)
	if v.Shape != Scalar || err != nil {
		return 0, v.Errorf("%s is not a number", v)
	}
	return f, nil
}

// Whole is a scalar's whole number in [lo, hi].
func (v Value) Whole(lo, hi int) (int, error) {
	n, err := strconv.Atoi(v.Text)
	if v.Shape != Scalar || err != nil || n < lo || n > hi {
		return 0, v.Errorf("%s is not a whole number from %d to %d", v, lo, hi)
	}
	return n, nil
}

// Duration is a scalar's duration > 0, as Go writes them (90s, 2m).
func (v Value) Duration() (time.Duration, error) {
	d, err := time.ParseDuration(v.Text)
	if v.Shape != Scalar || err != nil || d <= 0 {
		return 0, v.Errorf("%s is not a duration > 0 (e.g. 90s, 2m)", v)
	}
	return d, nil
}

// Missing is the error of a mapping without key.
func (v Value) Missing(key, example string) error {
	at := Value{Line: v.Line, Key: strings.TrimPrefix(v.Key+"."+key, ".")}
	return at.Errorf("missing (e.g. %s)", example)
}

// Mapping is a mapping's fields by key, each placed at its key; a key not
// in allowed, or written twice, is an error.
func (v Value) Mapping(allowed ...string) (map[string]Value, error) {
	if v.Shape != Map {
		return nil, v.Errorf("want a mapping of keys to values, e.g. {%s: …}", strings.Join(allowed, ": …, "))
	}
	out := map[string]Value{}
	var errs []error
	for _, f := range v.Map {
		fv := f.Value
		fv.Key = strings.TrimPrefix(v.Key+"."+f.Key, ".")
		switch _, dup := out[f.Key]; {
		case dup:
			errs = append(errs, fv.Errorf("repeated key: write it once"))
		case !slices.Contains(allowed, f.Key):
			errs = append(errs, fv.Errorf("unknown key (allowed: %s)", strings.Join(allowed, ", ")))
		default:
			out[f.Key] = fv
		}
	}
	return out, errors.Join(errs...)
}

// eachLevel builds one level from each item of v (Each), joining the
// errors of every item that fails.
func eachLevel(v Value, example string, level func(Value) (Pacer, error)) ([]Pacer, error) {
	items, err := v.Each(example)
	if err != nil {
		return nil, err
	}
	var out []Pacer
	var errs []error
	for _, it := range items {
		p, err := level(it)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	return out, errors.Join(errs...)
}
