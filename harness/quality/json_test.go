package quality

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestParseJSON(t *testing.T) {
	cases := map[string]struct {
		body        string
		lenient     bool
		ok, usedLen bool
		text        string
	}{
		"strict object":         {body: ` {"a":1}` + "\n", ok: true, text: `{"a":1}`},
		"strict string value":   {body: `"positive"`, ok: true, text: `"positive"`},
		"strict rejects fence":  {body: "```json\n{\"a\":1}\n```"},
		"strict rejects prose":  {body: `Here it is: {"a":1}`},
		"strict rejects two":    {body: `{"a":1} {"b":2}`},
		"strict rejects cut":    {body: `{"a":1`},
		"lenient fence":         {body: "```json\n{\"a\":1}\n```", lenient: true, ok: true, usedLen: true, text: `{"a":1}`},
		"lenient bare fence":    {body: "Sure:\n```\n[1,2]\n```\nDone.", lenient: true, ok: true, usedLen: true, text: `[1,2]`},
		"lenient prose":         {body: `Here it is: {"a":{"b":[1]}} hope that helps {"c":2}`, lenient: true, ok: true, usedLen: true, text: `{"a":{"b":[1]}}`},
		"lenient skips bad {":   {body: `use {braces} like {"a":1}`, lenient: true, ok: true, usedLen: true, text: `{"a":1}`},
		"lenient strict first":  {body: `{"a":1}`, lenient: true, ok: true, text: `{"a":1}`},
		"lenient still rejects": {body: `no json {here`, lenient: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, text, used, err := ParseJSON(tc.body, tc.lenient)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			if err != nil {
				if !errors.Is(err, ErrNotJSON) {
					t.Errorf("err = %v, want ErrNotJSON", err)
				}
				return
			}
			if used != tc.usedLen || text != tc.text {
				t.Errorf("got (%q, lenient=%v), want (%q, lenient=%v)", text, used, tc.text, tc.usedLen)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	a, _ := Canonical([]byte(`{"b": [1, 2.50], "a": {"y": true, "x": null}}`))
	b, _ := Canonical([]byte(`{"a":{"x":null,"y":true},"b":[1e0,2.5]}`))
	if string(a) != string(b) {
		t.Errorf("canonical forms differ:\n%s\n%s", a, b)
	}
	if want := `{"a":{"x":null,"y":true},"b":[1,2.5]}`; string(a) != want {
		t.Errorf("Canonical = %s, want %s", a, want)
	}
}

var invoiceSchema = filepath.Join("..", "..", "fixtures", "schemas", "invoice.json")

func TestSchemaErrors(t *testing.T) {
	s, err := CompileSchema(invoiceSchema)
	if err != nil {
		t.Fatal(err)
	}
	good := `{"vendor":"Acme","invoice_number":"A-1","date":"2024-03-01","currency":"USD","items":[{"description":"Bolt","quantity":2,"unit_price":1.5}],"total":3}`
	cases := map[string]struct {
		doc  string
		want []string // each must appear in the message
	}{
		"valid":            {good, nil},
		"negative total":   {strings.Replace(good, `"total":3`, `"total":-3`, 1), []string{"/total: minimum"}},
		"missing total":    {strings.Replace(good, `,"total":3`, ``, 1), []string{"/: required", "total"}},
		"bad date":         {strings.Replace(good, `2024-03-01`, `March 1`, 1), []string{"/date: format"}},
		"nested quantity":  {strings.Replace(good, `"quantity":2`, `"quantity":0`, 1), []string{"/items/0/quantity: exclusiveMinimum"}},
		"extra property":   {strings.Replace(good, `"total":3`, `"total":3,"tax":0`, 1), []string{"/: additionalProperties", "tax"}},
		"currency pattern": {strings.Replace(good, `"USD"`, `"dollars"`, 1), []string{"/currency: pattern"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			doc, _, _, err := ParseJSON(tc.doc, false)
			if err != nil {
				t.Fatal(err)
			}
			msg := ValidateSchema(s, doc)
			if len(tc.want) == 0 && msg != "" {
				t.Errorf("ValidateSchema = %q, want valid", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("ValidateSchema = %q, want it to contain %q", msg, w)
				}
			}
		})
	}
}

func TestSchemaDraft(t *testing.T) {
	dir := t.TempDir()
	// Without $schema, 2020-12 applies: prefixItems is a keyword there.
	p := writeFile(t, dir, "tuple.json", `{"type":"array","prefixItems":[{"type":"string"}]}`)
	s, err := CompileSchema(p)
	if err != nil {
		t.Fatal(err)
	}
	if msg := ValidateSchema(s, []any{1.0}); !strings.Contains(msg, "/0: type") {
		t.Errorf("2020-12 prefixItems not applied: %q", msg)
	}
	// A declared draft-07 schema ignores prefixItems.
	p = writeFile(t, dir, "d7.json", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","prefixItems":[{"type":"string"}]}`)
	if s, err = CompileSchema(p); err != nil {
		t.Fatal(err)
	}
	if msg := ValidateSchema(s, []any{1.0}); msg != "" {
		t.Errorf("draft-07 schema applied prefixItems: %q", msg)
	}
	p = writeFile(t, dir, "bad.json", `{"type":"nope"}`)
	if _, err := CompileSchema(p); err == nil {
		t.Error("a schema with an unknown type compiled")
	}
}

func TestSchemasCompileOnce(t *testing.T) {
	var c Schemas
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Get(invoiceSchema)
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatal("the same path compiled twice")
		}
	}
}
