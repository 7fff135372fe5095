package junit_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/report/junit"
	"github.com/llmsla/llmsla/harness/report/junit/junittest"
)

// hostile holds what an endpoint may put in a name or a message: XML's
// markup, a CDATA end, characters XML 1.0 forbids (ESC, NUL, a form
// feed, U+FFFE), a byte of invalid UTF-8, a newline, and a secret.
const hostile = "a<b>&\"c\" ]]> \x1b[31m\x00\x0c\uffff\xff line\nnext sk-secret-0123456789"

func hostileDoc() junit.Suites {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	return junit.Suites{Name: "llmsla " + hostile, Suites: []junit.Suite{{
		Name: "verdicts " + hostile, Timestamp: t0, Time: 2500 * time.Millisecond,
		Properties: []junit.Property{{Name: "commit", Value: "abc123"}, {Name: "endpoint " + hostile, Value: hostile}},
		Cases: []junit.Case{
			{Classname: "chat/prod", Name: "concurrency=1", Time: time.Second},
			{Classname: "chat/" + hostile, Name: "concurrency=5 " + hostile, Time: time.Second,
				Failures: []junit.Problem{{Message: "ttft p95 712 ms > 600 ms (n=40) " + hostile, Type: "sla", Detail: hostile}, {Message: "accuracy 75% < 90% (n=40)", Type: "sla"}}},
			{Classname: "chat/prod", Name: "concurrency=10", Errors: []junit.Problem{{Message: "ttft p95 not measured, want ≤ 600 ms (n=0)", Type: "not-measured"}},
				Failures: []junit.Problem{{Message: "error rate 100% > 1% (n=40)", Type: "sla"}}},
			{Classname: "chat/prod", Name: "shard", Skipped: &junit.Problem{Message: "shard 1/2: its share only"}, Output: hostile},
		},
		Output: "warning: " + hostile,
	}}}
}

// TestJUnitValidates: a document with every outcome and hostile text in
// every field validates against the schema, counts its cases, replaces
// what XML forbids with a visible escape and redacts the secret.
func TestJUnitValidates(t *testing.T) {
	var buf bytes.Buffer
	redact := func(s string) string { return strings.ReplaceAll(s, "sk-secret-0123456789", "[redacted]") }
	if err := junit.Write(&buf, hostileDoc(), redact); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	for _, b := range []byte{0x1b, 0x00, 0x0c, 0xff} {
		if bytes.IndexByte(out, b) >= 0 {
			t.Errorf("byte %#x written raw: XML 1.0 forbids it", b)
		}
	}
	if bytes.Contains(out, []byte("sk-secret")) {
		t.Error("the secret was written")
	}
	d := junittest.Parse(t, out)
	if d.Tests != 4 || d.Failures != 1 || d.Errors != 1 || d.Suites[0].Skipped != 1 {
		t.Errorf("tests=%d failures=%d errors=%d skipped=%d, want 4, 1, 1, 1", d.Tests, d.Failures, d.Errors, d.Suites[0].Skipped)
	}
	s := d.Suites[0]
	if s.Timestamp != "2026-03-04T05:06:07Z" {
		t.Errorf("timestamp %q", s.Timestamp)
	}
	want := `a<b>&"c" ]]> \x1b[31m\x00\x0c\uffff\xff line` + "\nnext [redacted]"
	if got := s.Cases[1].Failures[0].Detail; got != want {
		t.Errorf("failure text read back as %q, want %q", got, want)
	}
	if got := s.Cases[1].Classname; got != "chat/"+want {
		t.Errorf("classname read back as %q, want %q", got, "chat/"+want)
	}
	if !strings.HasPrefix(s.Output, "warning: a<b>") {
		t.Errorf("suite output %q", s.Output)
	}
	junittest.Validate(t, out)
}

// TestJUnitClean: only what XML 1.0 forbids is escaped.
func TestJUnitClean(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"plain":          {"chat endpoint=prod", "chat endpoint=prod"},
		"tab newline cr": {"a\tb\nc\rd", "a\tb\nc\rd"},
		"escape":         {"\x1b]0;title\x07", `\x1b]0;title\x07`},
		"nul":            {"a\x00b", `a\x00b`},
		"noncharacter":   {"\ufffe\uffff", `\ufffe\uffff`},
		"invalid utf-8":  {"a\xc3(", `a\xc3(`},
		"unicode kept":   {"ttft ≤ 600 ms — ok ✓ 𝄞", "ttft ≤ 600 ms — ok ✓ 𝄞"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := junit.Clean(tc.in); got != tc.want {
				t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
