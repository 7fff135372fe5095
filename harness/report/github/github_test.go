package github

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnnotationEscaped: a message or title cannot end the command early
// or start another: %, CR and LF are escaped in both, : and , in the title.
func TestAnnotationEscaped(t *testing.T) {
	for name, tc := range map[string]struct {
		a    Annotation
		want string
	}{
		"plain": {Annotation{Error, "SLA violated", "chat endpoint=prod concurrency=10: ttft p95 712 ms > 600 ms (n=40)"},
			"::error title=SLA violated::chat endpoint=prod concurrency=10: ttft p95 712 ms > 600 ms (n=40)"},
		"percent": {Annotation{Error, "", "error rate 5% > 1%"}, "::error::error rate 5%25 > 1%25"},
		"forged command": {Annotation{Error, "t", "x\n::warning::forged\r\n"},
			"::error title=t::x%0A::warning::forged%0D%0A"},
		"title property":                   {Annotation{Notice, "a: b, c%\n", "m"}, "::notice title=a%3A b%2C c%25%0A::m"},
		"percent escape not decoded twice": {Annotation{Error, "", "%0A"}, "::error::%250A"},
	} {
		t.Run(name, func(t *testing.T) {
			got := tc.a.String()
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if strings.ContainsAny(got, "\r\n") {
				t.Errorf("%q spans lines", got)
			}
		})
	}
}

// TestAnnotateBounded: GitHub shows 10 of a level per step; the tenth
// says how many more there were, other levels are not held back.
func TestAnnotateBounded(t *testing.T) {
	var as []Annotation
	for i := range 14 {
		as = append(as, Annotation{Level: Error, Message: fmt.Sprintf("v%d", i)})
	}
	as = append(as, Annotation{Level: Notice, Message: "headline"})
	var buf bytes.Buffer
	if err := Annotate(&buf, as); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != MaxPerLevel+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), MaxPerLevel+1, &buf)
	}
	if lines[8] != "::error::v8" || !strings.Contains(lines[9], "and 5 more") || lines[10] != "::notice::headline" {
		t.Errorf("lines:\n%s", &buf)
	}
}

// TestAppendSummary: the summary is appended to what the step wrote
// before, and what would pass 1 MiB is cut at a line, saying so.
func TestAppendSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(path, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendSummary(path, []byte("| a |\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "earlier\n| a |\n" {
		t.Errorf("file %q", b)
	}
	big := bytes.Repeat([]byte("| row | 1 |\n"), MaxSummary/12+100)
	if err := AppendSummary(path, big); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if len(b) > MaxSummary {
		t.Errorf("summary of %d bytes, over GitHub's %d", len(b), MaxSummary)
	}
	if !bytes.HasSuffix(b, []byte(cutNote)) || !bytes.Contains(b, []byte("| row | 1 |\n"+cutNote)) {
		t.Errorf("not cut at a line with the note: ends %q", b[len(b)-200:])
	}
}

// TestSummaryCode: backticks in the text cannot close its block.
func TestSummaryCode(t *testing.T) {
	got := Code("a ``` b\n````\n")
	if want := "`````text\na ``` b\n````\n`````\n"; got != want {
		t.Errorf("Code = %q, want %q", got, want)
	}
	if got := Code("plain\n"); got != "```text\nplain\n```\n" {
		t.Errorf("Code = %q", got)
	}
}
