package quality

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/secret"
)

// recorder is a testing.TB that records failures instead of failing, so that
// Golden's own failure path can be tested.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func TestGoldenRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "report.golden")

	rec := &recorder{TB: t}
	if !Golden(rec, path, []byte("line 1\nline 2\nline 3\n"), true) || len(rec.errs) > 0 {
		t.Fatalf("update failed: %v", rec.errs)
	}
	if !Golden(rec, path, []byte("line 1\nline 2\nline 3\n"), false) || len(rec.errs) > 0 {
		t.Fatalf("unchanged content failed: %v", rec.errs)
	}

	if Golden(rec, path, []byte("line 1\nline two\nline 3\n"), false) {
		t.Fatal("changed content passed")
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "-line 2\n+line two") {
		t.Errorf("diff not reported: %q", rec.errs)
	}
	if got, err := os.ReadFile(path + ".got"); err != nil || string(got) != "line 1\nline two\nline 3\n" {
		t.Errorf(".got = %q, %v", got, err)
	}

	rec.errs = nil
	if !Golden(rec, path, []byte("line 1\nline 2\nline 3\n"), false) || len(rec.errs) > 0 {
		t.Fatalf("passing again failed: %v", rec.errs)
	}
	if _, err := os.Stat(path + ".got"); !os.IsNotExist(err) {
		t.Errorf("stale .got not removed: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, "sub", ".*tmp*")); len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
}

func TestGoldenCanonicalJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "resp.json")
	rec := &recorder{TB: t}
	Golden(rec, path, []byte(`{"b":[1,2],"a":{"y":1,"x":"s"}}`), true)
	cases := map[string]struct {
		got  string
		pass bool
		diff string
	}{
		"same":          {`{"b":[1,2],"a":{"y":1,"x":"s"}}`, true, ""},
		"key order":     {"{\n  \"a\": {\"x\": \"s\", \"y\": 1.0},\n  \"b\": [1, 2]\n}", true, ""},
		"changed value": {`{"a":{"x":"s","y":2},"b":[1,2]}`, false, "-    \"y\": 1\n+    \"y\": 2"},
		"not json":      {`a: {x: s}`, false, "+a: {x: s}"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{TB: t}
			if got := Golden(rec, path, []byte(tc.got), false); got != tc.pass {
				t.Fatalf("Golden = %v, want %v (%v)", got, tc.pass, rec.errs)
			}
			if !tc.pass && (len(rec.errs) == 0 || !strings.Contains(rec.errs[0], tc.diff)) {
				t.Errorf("diff %q does not contain %q", rec.errs, tc.diff)
			}
		})
	}
}

func TestGoldenRefusesSecrets(t *testing.T) {
	t.Setenv("LLMSLA_TEST_API_KEY", "sk-test-1234567890")
	t.Setenv("SHORT_TOKEN", "abc") // too short to be a secret
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")

	rec := &recorder{TB: t}
	if Golden(rec, path, []byte(`{"auth":"Bearer sk-test-1234567890"}`), true) {
		t.Fatal("wrote a secret")
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "$LLMSLA_TEST_API_KEY") || strings.Contains(rec.errs[0], "sk-test") {
		t.Errorf("errors = %q, want one naming the variable and not the value", rec.errs)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("golden file written")
	}
	// Not on the mismatch path either.
	writeFile(t, dir, "x.golden", "{}")
	rec.errs = nil
	Golden(rec, path, []byte(`{"k":"sk-test-1234567890"}`), false)
	if _, err := os.Stat(path + ".got"); !os.IsNotExist(err) {
		t.Error(".got holding a secret written")
	}
	if strings.Contains(strings.Join(rec.errs, "\n"), "sk-test") {
		t.Errorf("the diff shows the secret: %q", rec.errs)
	}
	var es *SecretError
	if err := writeFileSafe(path, []byte("sk-test-1234567890"), envSecrets()); !errors.As(err, &es) || es.Var != "LLMSLA_TEST_API_KEY" {
		t.Errorf("writeFileSafe = %v", err)
	}
	if !Golden(rec, filepath.Join(dir, "ok.golden"), []byte("abc abc"), true) {
		t.Errorf("a short value refused: %v", rec.errs)
	}
}

// TestGoldenRefusesConfiguredSecrets: a secret of the configuration (a
// header or query value, whatever its variable's name) is refused like an
// API key, and a mismatch's diff shows it redacted, never the value.
func TestGoldenRefusesConfiguredSecrets(t *testing.T) {
	const hdr = "hdr-secret-value-42"
	refuse := Refuse(secret.New(hdr))
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	rec := &recorder{TB: t}
	if Golden(rec, path, []byte("answer: "+hdr+"\n"), true, refuse) {
		t.Fatal("wrote a configured secret")
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "secret of the configuration") {
		t.Errorf("errors = %q", rec.errs)
	}
	writeFile(t, dir, "x.golden", "answer: 42\n")
	rec.errs = nil
	if Golden(rec, path, []byte("answer: "+hdr+"\n"), false, refuse) {
		t.Fatal("a mismatch passed")
	}
	all := strings.Join(rec.errs, "\n")
	if strings.Contains(all, "hdr-secret") || !strings.Contains(all, "+answer: [redacted]") {
		t.Errorf("diff shows the secret or no change:\n%s", all)
	}
	if _, err := os.Stat(path + ".got"); !os.IsNotExist(err) {
		t.Error(".got holding a secret written")
	}
}

func TestScrub(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"response": {
			`{"id":"chatcmpl-9","created":1718000000,"model":"m","system_fingerprint":"fp_1","choices":[{"message":{"content":"hi"}}],"usage":{"created_at":"2024-01-01T00:00:00Z","total_tokens":3}}`,
			"{\n  \"choices\": [\n    {\n      \"message\": {\n        \"content\": \"hi\"\n      }\n    }\n  ],\n  \"model\": \"m\",\n  \"usage\": {\n    \"total_tokens\": 3\n  }\n}\n",
		},
		"sse": {
			"data: {\"id\":\"c1\",\"created\":1,\"choices\":[]}\n: ping\n\ndata: [DONE]\n",
			"data: {\"choices\":[]}\n: ping\n\ndata: [DONE]\n",
		},
		"keeps dates": {`{"date":"2024-03-01"}`, "{\n  \"date\": \"2024-03-01\"\n}\n"},
		"text":        {"plain text\n", "plain text\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := string(Scrub([]byte(tc.in))); got != tc.want {
				t.Errorf("Scrub =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestLineDiff(t *testing.T) {
	want := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	got := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n"
	d := LineDiff(want, got)
	for _, w := range []string{"@@ -2 +2 @@\n b\n c\n d\n-e\n+E\n f\n", "+k\n"} {
		if !strings.Contains(d, w) {
			t.Errorf("LineDiff =\n%s\nwant it to contain\n%s", d, w)
		}
	}
	if strings.Contains(d, " a\n") {
		t.Errorf("context beyond 3 lines:\n%s", d)
	}
}
