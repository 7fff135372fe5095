package sample

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Level is the load a request ran under, as key=value labels joined by
// "/": "concurrency=5", "rate=10", "prompt_tokens=1024/concurrency=1". It is
// the same string in subtest and benchmark names, in the samples file, in
// the verdict table and in the gate, so that every view groups by it.
// Values are numbers or short words; neither keys nor values hold "/" or "=".
type Level string

// Label is one key=value pair of a Level.
type Label struct{ Key, Value string }

// NewLevel returns the level of one label, e.g. NewLevel("concurrency", 5).
func NewLevel(key string, value any) Level { return Level("").With(key, value) }

// With returns l with key=value added, or replaced when key is there.
func (l Level) With(key string, value any) Level {
	v := formatValue(value)
	labels := l.Labels()
	for i := range labels {
		if labels[i].Key == key {
			labels[i].Value = v
			return join(labels)
		}
	}
	return join(append(labels, Label{key, v}))
}

// Labels returns the pairs in order.
func (l Level) Labels() []Label {
	if l == "" {
		return nil
	}
	parts := strings.Split(string(l), "/")
	out := make([]Label, 0, len(parts))
	for _, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		out = append(out, Label{k, v})
	}
	return out
}

// Get returns the value of key.
func (l Level) Get(key string) (string, bool) {
	for _, lb := range l.Labels() {
		if lb.Key == key {
			return lb.Value, true
		}
	}
	return "", false
}

// Float returns the value of key as a number, and false when it is absent
// or not a number.
func (l Level) Float(key string) (float64, bool) {
	v, ok := l.Get(key)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// Concurrency is the value of the concurrency label, 0 when there is none.
func (l Level) Concurrency() int {
	f, _ := l.Float("concurrency")
	return int(f)
}

// Less orders levels label by label, numbers by value (so concurrency=5
// comes before concurrency=10), for tables that read in load order.
func Less(a, b Level) bool {
	la, lb := a.Labels(), b.Labels()
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i].Key != lb[i].Key {
			return la[i].Key < lb[i].Key
		}
		if la[i].Value == lb[i].Value {
			continue
		}
		fa, ea := strconv.ParseFloat(la[i].Value, 64)
		fb, eb := strconv.ParseFloat(lb[i].Value, 64)
		if ea == nil && eb == nil {
			return fa < fb
		}
		return la[i].Value < lb[i].Value
	}
	return len(la) < len(lb)
}

func join(labels []Label) Level {
	parts := make([]string, len(labels))
	for i, lb := range labels {
		parts[i] = lb.Key + "=" + lb.Value
	}
	return Level(strings.Join(parts, "/"))
}

func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

var procsSuffix = regexp.MustCompile(`-(\d+)$`)

// NameValue escapes a value for a key=value benchmark name: "/" would start
// a new level and a trailing "-<digits>" would be read as GOMAXPROCS by
// benchfmt (model=gpt-4), so both become "_". An endpoint's name is one
// such value, in benchmark names, golden directories and the gate alike.
func NameValue(v string) string {
	v = strings.NewReplacer("/", "_", " ", "_").Replace(v)
	return procsSuffix.ReplaceAllString(v, "_$1")
}
