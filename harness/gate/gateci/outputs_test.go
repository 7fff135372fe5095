package gateci

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/report/junit/junittest"
	"github.com/llmsla/llmsla/harness/secret"
)

// TestBrokenRunSaysWhy (issue 29, item 9): a run broken by a message of
// several lines — the preflight's, its first line saying only that it
// failed — writes a JUnit error, a summary and an annotation that carry
// the cause, not the first line alone; a secret in it is redacted.
func TestBrokenRunSaysWhy(t *testing.T) {
	const key = "sk-test-key-0123456789"
	t.Setenv(github.SummaryEnv, filepath.Join(t.TempDir(), "summary.md"))
	t.Setenv("GITHUB_ACTIONS", "true")
	c := &Outputs{JUnit: filepath.Join(t.TempDir(), "junit.xml"), Secrets: func() *secret.Set { return secret.New(key) }}
	var out bytes.Buffer
	stderr := c.Start("bench", &out, io.Discard)
	io.WriteString(stderr, "progress: chat 1/20\n")
	io.WriteString(stderr, "llmsla: preflight, before any measured request (-keep-going sends the run anyway):\n"+
		"  endpoint sim (127.0.0.1:9): the first request failed: connection refused (key "+key+")\n")
	if code := c.Finish(2); code != 2 {
		t.Fatalf("exit %d", code)
	}
	xml, err := os.ReadFile(c.JUnit)
	if err != nil {
		t.Fatal(err)
	}
	d := junittest.Parse(t, xml)
	cases := d.Suites[0].Cases
	if len(cases) != 1 || len(cases[0].Errors) != 1 {
		t.Fatalf("cases %+v, want one error", cases)
	}
	const why = "the first request failed: connection refused (key [redacted])"
	msg := cases[0].Errors[0].Message
	if !strings.HasPrefix(msg, "llmsla bench: exit 2, llmsla: preflight, before any measured request") || !strings.Contains(msg, why) {
		t.Errorf("JUnit message %q: want the cause, %q", msg, why)
	}
	md, _ := os.ReadFile(os.Getenv(github.SummaryEnv))
	for name, b := range map[string][]byte{"JUnit file": xml, "summary": md, "annotations": out.Bytes()} {
		if bytes.Contains(b, []byte(key)) || !bytes.Contains(b, []byte("connection refused")) {
			t.Errorf("the %s lacks the cause, or holds the key:\n%s", name, b)
		}
	}
	junittest.Validate(t, xml)
}
