package trace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ParseColumns reads a column mapping written key=name,… (keys
// timestamp, unit, input, output, messages, hash_ids), as llmsla trace
// -columns takes it.
func ParseColumns(s string) (Columns, error) {
	var c Columns
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) {
		k, v, _ := strings.Cut(kv, "=")
		into := map[string]*string{"timestamp": &c.Timestamp, "unit": (*string)(&c.Unit), "input": &c.Input,
			"output": &c.Output, "messages": &c.Messages, "hash_ids": &c.Hashes}[k]
		if into == nil || v == "" {
			return c, fmt.Errorf("%q: want key=name, keys timestamp, unit, input, output, messages, hash_ids", kv)
		}
		*into = v
	}
	return c, nil
}

// WriteFile streams a trace to path through a temporary file beside it,
// renamed over path once whole (a trace can be larger than memory, so
// atomicfile's whole-buffer write does not do), and returns the rows
// write wrote.
func WriteFile(path string, write func(io.Writer) (rows int, err error)) (int, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name()) // gone once renamed
	n, err := write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return n, err
}
