package trace

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/escape"
)

// field is one column's raw value: JSON text, or a CSV cell.
type field struct {
	name    string
	raw     string
	present bool
	csv     bool
}

// parse reads one line into a row under the mapping.
func (r *Reader) parse(line []byte) (Row, error) {
	get, err := r.fields(line)
	if err != nil {
		return Row{}, err
	}
	c := r.cols
	var row Row
	var errs []error
	at, err := timestamp(get(c.Timestamp), c.Unit)
	errs = append(errs, err)
	row.At = at
	row.Output, err = tokens(get(c.Output))
	errs = append(errs, err)
	if c.Messages != "" {
		row.Messages, err = messages(get(c.Messages))
		errs = append(errs, err)
	}
	if in := get(c.Input); in.present || len(row.Messages) == 0 {
		row.Input, err = tokens(in)
		errs = append(errs, err)
	} else {
		row.Input = words(row.Messages)
	}
	if c.Hashes != "" {
		row.Hashes, err = hashes(get(c.Hashes))
		errs = append(errs, err)
	}
	return row, errors.Join(errs...)
}

// fields splits a line into a lookup by column name.
func (r *Reader) fields(line []byte) (func(name string) field, error) {
	if r.header != nil {
		cells, err := csvCells(line)
		if err != nil {
			return nil, err
		}
		if len(cells) != len(r.header) {
			return nil, fmt.Errorf("%d cells, the header has %d", len(cells), len(r.header))
		}
		return func(name string) field {
			i, ok := r.header[name]
			if !ok {
				return field{name: name, csv: true}
			}
			return field{name: name, raw: cells[i], present: cells[i] != "", csv: true}
		}, nil
	}
	cols := [...]string{r.cols.Timestamp, r.cols.Input, r.cols.Output, r.cols.Messages, r.cols.Hashes}
	var raws [len(cols)][]byte
	var twice string
	err := objectFields(line, func(key string, raw []byte) {
		for i, c := range cols {
			if c != "" && key == c {
				if raws[i] != nil {
					twice = key
				}
				raws[i] = raw
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if twice != "" {
		return nil, errTwice(twice)
	}
	return func(name string) field {
		for i, c := range cols {
			if c == name {
				return field{name: name, raw: string(raws[i]), present: raws[i] != nil && string(raws[i]) != "null"}
			}
		}
		return field{name: name}
	}, nil
}

// readHeader reads a CSV's first line: the columns the mapping names must
// be there.
func (r *Reader) readHeader() error {
	line, err := r.readLine()
	if err != nil {
		return fmt.Errorf("%s: no header line: %v", r.name, err)
	}
	cells, err := csvCells(line)
	if err != nil {
		return r.errorf("header: %v", err)
	}
	r.header = map[string]int{}
	for i, c := range cells {
		name := strings.TrimSpace(c)
		if _, ok := r.header[name]; ok {
			return r.errorf("header: column %s twice: which one a row means is not known", quote(name))
		}
		r.header[name] = i
	}
	c := r.cols
	for _, need := range []string{c.Timestamp, c.Output} {
		if _, ok := r.header[need]; !ok {
			names := make([]string, len(cells))
			for i, c := range cells {
				names[i] = quote(c)
			}
			return r.errorf("header has no column %q (columns: %s)", need, strings.Join(names, ", "))
		}
	}
	_, in := r.header[c.Input]
	_, msgs := r.header[c.Messages]
	if !in && !msgs {
		return r.errorf("header has neither the input column %q nor the messages column %q", c.Input, c.Messages)
	}
	return nil
}

// errTwice is a line that gives a field it reads twice: readers differ
// on which one counts (the first, the last), so the file is ambiguous.
func errTwice(key string) error {
	return fmt.Errorf("%s: given twice in the line: which one is meant is not known", key)
}

// quote writes a name from the file for a message: quoted, its control
// characters escaped, at most 80 bytes of it.
func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return `"` + escape.Text(s) + `"`
}

func csvCells(line []byte) ([]string, error) {
	cr := csv.NewReader(strings.NewReader(string(line)))
	cr.FieldsPerRecord = -1
	cells, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("not a CSV row: %v", err)
	}
	return cells, nil
}

// text is a field's string: a CSV cell, or a JSON string or number.
func (f field) text() (string, bool) {
	if f.csv {
		return strings.TrimSpace(f.raw), true
	}
	if strings.HasPrefix(f.raw, `"`) {
		var s string
		err := json.Unmarshal([]byte(f.raw), &s)
		return s, err == nil
	}
	if f.raw == "" || strings.ContainsAny(f.raw[:1], "[{tfn") {
		return "", false // a list, an object, true, false or null
	}
	return f.raw, true // a number: its parser checks it
}

// firstDate and lastDate bound the dates a timestamp may name: an
// instant is held as nanoseconds from the Unix epoch in an int64, so a
// later date would wrap into another, and from the epoch on, so that the
// offset between any two rows fits in a Duration (as a number's does:
// numbers are ≥ 0).
var firstDate, lastDate = time.Unix(0, 0).UTC(), time.Unix(0, math.MaxInt64).UTC()

// timestamp reads a row's instant.
func timestamp(f field, u Unit) (time.Duration, error) {
	s, ok := f.text()
	if !f.present || !ok {
		return 0, fmt.Errorf("%s: missing, or not a timestamp", f.name)
	}
	if u == DateTime {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
			t, err := time.Parse(layout, s)
			switch {
			case err != nil:
				continue
			case t.Before(firstDate):
				return 0, fmt.Errorf("%s: %q is before %s: a date is held as nanoseconds from the Unix epoch (allowed: %s to %s)", f.name, s, firstDate.Format(time.RFC3339), firstDate.Format(time.RFC3339), lastDate.Format(time.RFC3339))
			case t.After(lastDate):
				return 0, fmt.Errorf("%s: %q is after %s, the last date nanoseconds from the Unix epoch hold in 64 bits (allowed: %s to %s)", f.name, s, lastDate.Format(time.RFC3339), firstDate.Format(time.RFC3339), lastDate.Format(time.RFC3339))
			}
			return time.Duration(t.UnixNano()), nil
		}
		return 0, fmt.Errorf("%s: %q is not a date and time (RFC 3339, or 2006-01-02 15:04:05.999)", f.name, s)
	}
	if ns, ok := number(s, unitOf(u)); ok {
		return ns, nil
	}
	return 0, fmt.Errorf("%s: %q is not a timestamp in %s from 0 to %d", f.name, s, u, math.MaxInt64/int64(unitOf(u)))
}

// number reads a timestamp of unit u written as a decimal number ≥ 0: a
// whole one exactly (a Unix time in ns has more digits than a float64
// holds), a fraction to the nanosecond float64 keeps; ok false for
// anything else, or past what a Duration holds.
func number(s string, u time.Duration) (time.Duration, bool) {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789.eE+-", r) }) {
		return 0, false // hex, inf, nan, underscores: not a timestamp a log writes
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/int64(u) {
			return 0, false
		}
		return time.Duration(n) * u, true
	}
	x, err := strconv.ParseFloat(s, 64)
	ns := x * float64(u)
	if err != nil || !(ns >= 0 && ns < math.MaxInt64) {
		return 0, false
	}
	return time.Duration(ns), true
}

// tokens reads a length in tokens, 1 to MaxTokens.
func tokens(f field) (int, error) {
	s, ok := f.text()
	n, err := strconv.Atoi(s)
	if !f.present || !ok || err != nil || n < 1 || n > MaxTokens {
		if !f.present {
			s = "missing"
		} else {
			s = strconv.Quote(s)
		}
		return 0, fmt.Errorf("%s: %s is not a length in tokens from 1 to %d", f.name, s, MaxTokens)
	}
	return n, nil
}

// hashes reads a row's block hashes, a JSON list of whole numbers ≥ 0.
func hashes(f field) ([]int64, error) {
	if !f.present {
		return nil, nil
	}
	var hs []int64
	if err := json.Unmarshal([]byte(f.raw), &hs); err != nil {
		return nil, fmt.Errorf("%s: not a list of whole numbers", f.name)
	}
	if len(hs) > MaxHashes {
		return nil, fmt.Errorf("%s: %d hashes, more than %d", f.name, len(hs), MaxHashes)
	}
	for _, h := range hs {
		if h < 0 {
			return nil, fmt.Errorf("%s: %d: want hashes ≥ 0", f.name, h)
		}
	}
	return hs, nil
}

// messages reads a row's own prompt, a JSON list of {role, content}.
func messages(f field) ([]Message, error) {
	if !f.present {
		return nil, nil
	}
	var ms []Message
	if err := json.Unmarshal([]byte(f.raw), &ms); err != nil {
		return nil, fmt.Errorf("%s: not a list of {role, content} messages", f.name)
	}
	for i, m := range ms {
		if m.Role == "" {
			return nil, fmt.Errorf("%s[%d]: no role", f.name, i)
		}
	}
	return ms, nil
}

// words counts the words of messages: the length of a prompt the row
// gives instead of a number.
func words(ms []Message) int {
	n := 0
	for _, m := range ms {
		n += len(strings.Fields(m.Content))
	}
	return n
}
