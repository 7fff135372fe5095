package quality

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// CompileSchema compiles the JSON Schema file at path. A schema without
// $schema is read as draft 2020-12 (the library's own default has moved
// between releases; pinning it keeps a fixture's meaning fixed); a $schema
// naming another draft wins. Formats such as "date" are asserted, not just
// annotated: a quality check that lets "yesterday" through as a date is no
// check. Use a Schemas cache to compile each file once per run.
func CompileSchema(path string) (*jsonschema.Schema, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	s, err := c.Compile(abs)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	return s, nil
}

// CompileSchemaJSON compiles a schema held in memory (one built in code,
// such as a judge's verdict schema) as CompileSchema compiles a file:
// draft 2020-12 unless it says otherwise, formats asserted. name is the
// schema's resource name in messages.
func CompileSchemaJSON(name string, schema []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, bytes.NewReader(schema)); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return s, nil
}

// Schemas compiles each schema file once and hands out the compiled schema
// to any number of goroutines. The zero value is ready to use.
type Schemas struct {
	mu sync.Mutex
	m  map[string]*schemaEntry
}

type schemaEntry struct {
	once sync.Once
	s    *jsonschema.Schema
	err  error
}

// Get returns the compiled schema for path, compiling it on first use. A
// failed compilation is cached too: the file will not change mid-run.
func (c *Schemas) Get(path string) (*jsonschema.Schema, error) {
	key, err := filepath.Abs(path)
	if err != nil {
		key = path
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*schemaEntry{}
	}
	e, ok := c.m[key]
	if !ok {
		e = &schemaEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	// Compile outside the map lock so that two schemas compile in parallel.
	e.once.Do(func() { e.s, e.err = CompileSchema(path) })
	return e.s, e.err
}

// ValidateSchema validates a decoded document (numbers as json.Number, as
// ParseJSON returns them) and returns "" or a message naming each violation
// by instance path and keyword, e.g. "/total: minimum (must be >= 0 but
// found -5)".
func ValidateSchema(s *jsonschema.Schema, doc any) string {
	err := s.Validate(doc)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	return describeViolations(ve, 3)
}

// describeViolations lists the leaf causes: the outer errors only say "does
// not validate with #", the leaves say which value broke which keyword.
func describeViolations(ve *jsonschema.ValidationError, max int) string {
	var leaves []string
	seen := map[string]bool{}
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := e.InstanceLocation
		if at == "" {
			at = "/"
		}
		kw := e.KeywordLocation
		if i := strings.LastIndexByte(kw, '/'); i >= 0 {
			kw = kw[i+1:]
		}
		msg := fmt.Sprintf("%s: %s (%s)", at, kw, e.Message)
		if !seen[msg] {
			seen[msg] = true
			leaves = append(leaves, msg)
		}
	}
	walk(ve)
	sort.Strings(leaves)
	more := ""
	if len(leaves) > max {
		more = fmt.Sprintf("; and %d more", len(leaves)-max)
		leaves = leaves[:max]
	}
	return strings.Join(leaves, "; ") + more
}
