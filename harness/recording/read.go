package recording

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// maxSyntaxErrors bounds how many corrupt lines are listed; past a handful
// the file is plainly not benchmark output and more lines do not help.
const maxSyntaxErrors = 5

// Read reads every source in order through one benchfmt.Reader, so unit
// metadata accumulates across files and a conflict between them (better=lower
// in one, higher in the other) surfaces as a syntax error. Each result that
// survives filter (nil: every one) is passed to fn with the index of its source; fn must not
// retain the result. The meaningless ns/op is dropped before filtering.
// Every line benchfmt reads without complaint but no comparison can rest
// on is an error wrapping ErrUnusable, after the whole input was read, so
// that it lists them all (a handful).
func Read(srcs []Source, filter *benchproc.Filter, fn func(src int, res *benchfmt.Result)) (benchfmt.UnitMetadataMap, error) {
	var rd benchfmt.Reader
	var syntax []string
	for i, src := range srcs {
		bad, err := readOne(&rd, src, func(res *benchfmt.Result) {
			if filter == nil || apply(filter, res) {
				fn(i, res)
			}
		})
		if err != nil {
			return nil, err
		}
		syntax = append(syntax, bad...)
	}
	if len(syntax) > 0 {
		return nil, syntaxError(syntax)
	}
	return rd.Units(), nil
}

// readOne reads src through rd, passing fn each result whose values are
// usable, and returns what is wrong with its lines, or the error that
// stops the reading.
func readOne(rd *benchfmt.Reader, src Source, fn func(*benchfmt.Result)) ([]string, error) {
	r := src.R
	if r == nil {
		f, err := os.Open(src.Path)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot read %s: %v; check the path, or record a run first (make bench)", ErrUnusable, src.Path, err)
		}
		defer f.Close()
		r = f
	}
	ls := &lines{r: r}
	rd.Reset(ls, src.Name, ".file", src.Name)
	var syntax []string
	results := 0
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			syntax = append(syntax, rec.Error())
		case *benchfmt.Result:
			if unsent, bad := Unsent(rec); unsent {
				if bad != "" {
					syntax = append(syntax, bad)
				}
				continue // not a run: the repetitions before it decided
			}
			results++
			if bad := checkValues(rec); len(bad) > 0 {
				syntax = append(syntax, bad...)
				continue
			}
			dropUnit(rec, "ns/op")
			fn(rec)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrUnusable, src.Name, err)
	}
	for _, bad := range []string{ls.cut(src.Name), ls.copied(src.Name)} {
		if bad != "" {
			syntax = append(syntax, bad)
		}
	}
	if results == 0 && len(syntax) == 0 {
		return nil, fmt.Errorf("%w: %s holds no benchmark results; is it `go test -bench` output?", ErrUnusable, src.Name)
	}
	return syntax, nil
}

// apply reports whether res survives filter, which drops the values it
// does not match from res.
func apply(filter *benchproc.Filter, res *benchfmt.Result) bool {
	ok, _ := filter.Apply(res)
	return ok
}

// syntaxError reports corrupt lines rather than skipping them as benchstat
// does: a dropped line could be the one that shows the regression.
func syntaxError(lines []string) error {
	seen := map[string]bool{} // a file read as both sides says it once
	lines = slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
		dup := seen[l]
		seen[l] = true
		return dup
	})
	more := ""
	if len(lines) > maxSyntaxErrors {
		more = fmt.Sprintf("\n\t(and %d more)", len(lines)-maxSyntaxErrors)
		lines = lines[:maxSyntaxErrors]
	}
	return fmt.Errorf("%w: corrupt benchmark lines; fix or re-record the file:\n\t%s%s",
		ErrUnusable, strings.Join(lines, "\n\t"), more)
}

// dropUnit removes the values in unit from res in place.
func dropUnit(res *benchfmt.Result, unit string) {
	vals := res.Values[:0]
	for _, v := range res.Values {
		if UnitOf(v) != unit {
			vals = append(vals, v)
		}
	}
	res.Values = vals
}

// ParseFilter parses a benchfilter query, "*" when empty.
func ParseFilter(q string) (*benchproc.Filter, error) {
	if q == "" {
		q = "*"
	}
	f, err := benchproc.NewFilter(q)
	if err != nil {
		return nil, fmt.Errorf("-filter %q: %w", q, err)
	}
	return f, nil
}

// UnitOf and ValueOf give a value as written in the file. benchfmt tidies
// ns to sec and MB to B; reports should show what the harness recorded.
func UnitOf(v benchfmt.Value) string {
	if v.OrigUnit != "" {
		return v.OrigUnit
	}
	return v.Unit
}

func ValueOf(v benchfmt.Value) float64 {
	if v.OrigUnit != "" {
		return v.OrigValue
	}
	return v.Value
}
