package quality

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ErrNotJSON says a response body is not a JSON value.
var ErrNotJSON = errors.New("not a JSON value")

// ParseJSON decodes a response body as JSON. Strict mode (lenient false)
// accepts only a body that is, once trimmed, exactly one JSON value: that is
// what a client doing json.Unmarshal on the answer needs. Lenient mode also
// accepts a value wrapped in a ```json fence or in prose, taking the first
// complete object or array; usedLenient reports that only the lenient path
// succeeded, so it can be counted apart. text is the JSON text that was
// decoded. Numbers decode as json.Number, as the schema validator wants.
func ParseJSON(body string, lenient bool) (v any, text string, usedLenient bool, err error) {
	trimmed := strings.TrimSpace(body)
	v, err = decodeOne(trimmed)
	if err == nil {
		return v, trimmed, false, nil
	}
	strictErr := err
	if !lenient {
		return nil, "", false, fmt.Errorf("%w: %v", ErrNotJSON, strictErr)
	}
	if inner, ok := fenced(trimmed); ok {
		if v, err := decodeOne(inner); err == nil {
			return v, inner, true, nil
		}
	}
	if v, text, ok := firstValue(trimmed); ok {
		return v, text, true, nil
	}
	return nil, "", false, fmt.Errorf("%w (lenient: no complete object or array found): %v", ErrNotJSON, strictErr)
}

// decodeOne decodes s, which must hold exactly one JSON value.
func decodeOne(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value, or text after the value")
	}
	return v, nil
}

var fenceRE = regexp.MustCompile("(?s)```[a-zA-Z]*[ \t]*\r?\n(.*?)```")

// fenced returns the contents of the first Markdown code fence in s.
func fenced(s string) (string, bool) {
	m := fenceRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return strings.TrimSpace(m[1]), true
}

// firstValue finds the first '{' or '[' in s that starts a complete JSON
// value and decodes that value, ignoring what follows.
func firstValue(s string) (any, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err == nil {
			return v, s[i : i+int(dec.InputOffset())], true
		}
	}
	return nil, "", false
}

// Canonical re-encodes a JSON document with object keys sorted and
// insignificant whitespace removed, so that two documents that mean the same
// compare equal as bytes. Numbers are compared by value: 10, 10.0 and 1e1 are
// one number.
func Canonical(doc []byte) ([]byte, error) {
	v, err := decodeOne(string(doc))
	if err != nil {
		return nil, err
	}
	return marshalCanonical(v, "")
}

// marshalCanonical encodes a decoded value; a non-empty indent pretty-prints
// (golden files are read by people).
func marshalCanonical(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(normNumbers(v)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// normNumbers rewrites json.Numbers in a shortest canonical form. Maps are
// sorted by encoding/json itself.
func normNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normNumbers(e)
		}
		return out
	}
	return v
}

// jsonEqual compares two decoded values by canonical encoding.
func jsonEqual(a, b any) bool {
	ca, errA := marshalCanonical(a, "")
	cb, errB := marshalCanonical(b, "")
	return errA == nil && errB == nil && bytes.Equal(ca, cb)
}

// pathStep is one step of a JSON path: a key, or an index when key is "".
type pathStep struct {
	key   string
	index int
}

var pathTokenRE = regexp.MustCompile(`^(?:\.?([A-Za-z_][A-Za-z0-9_\-]*)|\[(\d+)\]|\["([^"]*)"\])`)

// parsePath parses the simple paths fixtures use: `$.total`, `items[0].sku`,
// `$["unit price"]`. Filters and wildcards are deliberately absent: a check
// names one value.
func parsePath(p string) ([]pathStep, error) {
	s := strings.TrimPrefix(strings.TrimSpace(p), "$")
	if s == "" {
		return nil, nil
	}
	var steps []pathStep
	for s != "" {
		m := pathTokenRE.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("bad path %q at %q (want $.key, key[0] or [\"key\"])", p, s)
		}
		switch {
		case m[1] != "":
			steps = append(steps, pathStep{key: m[1]})
		case m[2] != "":
			i, _ := strconv.Atoi(m[2])
			steps = append(steps, pathStep{index: i})
		default:
			steps = append(steps, pathStep{key: m[3]})
		}
		s = s[len(m[0]):]
	}
	return steps, nil
}

// lookup follows a parsed path through a decoded document.
func lookup(v any, steps []pathStep) (any, error) {
	for _, st := range steps {
		switch x := v.(type) {
		case map[string]any:
			if st.key == "" {
				return nil, fmt.Errorf("index [%d] on an object", st.index)
			}
			e, ok := x[st.key]
			if !ok {
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				return nil, fmt.Errorf("no key %q (have %s)", st.key, strings.Join(keys, ", "))
			}
			v = e
		case []any:
			if st.key != "" {
				return nil, fmt.Errorf("key %q on an array", st.key)
			}
			if st.index >= len(x) {
				return nil, fmt.Errorf("index %d out of range (length %d)", st.index, len(x))
			}
			v = x[st.index]
		default:
			return nil, fmt.Errorf("cannot step into %T", v)
		}
	}
	return v, nil
}

// compact renders a decoded value as one line of canonical JSON, for display.
func compact(v any) string {
	b, err := marshalCanonical(v, "")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
