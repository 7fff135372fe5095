package trace

import (
	"encoding/json"
	"errors"
	"strconv"
)

// A JSON row is read by splitting its object into its top-level keys and
// raw values, after json.Valid has checked the whole line: the standard
// decoder into a map took 4 µs a row, most of a replay's reading, and a
// trace of ten million rows is read twice (scanned, then replayed).

// errNotObject is a valid JSON line that is not an object.
var errNotObject = errors.New("want an object, one row a line")

// objectFields calls fn with each top-level key of the JSON object line
// and its value's raw text.
func objectFields(line []byte, fn func(key string, raw []byte)) error {
	if !json.Valid(line) {
		var v any
		return json.Unmarshal(line, &v) // the decoder's message says where
	}
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return errNotObject
	}
	i++
	for {
		i = skipSpace(line, i)
		if line[i] == '}' {
			return nil
		}
		if line[i] == ',' {
			i = skipSpace(line, i+1)
		}
		end := skipString(line, i)
		key := string(line[i+1 : end-1])
		if k, err := strconv.Unquote(string(line[i:end])); err == nil {
			key = k
		}
		i = skipSpace(line, end)
		i = skipSpace(line, i+1) // the colon
		vend := skipValue(line, i)
		fn(key, line[i:vend])
		i = vend
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString is the index after the string that opens at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue is the index after the value that starts at i (valid JSON).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' {
		i++
	}
	return i
}
