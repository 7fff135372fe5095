package main

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/sim"
)

// The secrets of TestSecretsNeverWritten, each with a start of its own so
// that any part of one is found.
const (
	echoKey    = "KEYq7-0123456789abcdefghij"
	echoHeader = "HDRq7-0123456789abcdefghij"
	echoQuery  = "QRYq7-0123456789abcdefghij"
)

// TestSecretsNeverWritten: an endpoint that sends back the request's
// secrets — the API key, a header value and a URL query value — in its
// answers (cut into tokens) and in error messages leaves none of them,
// whole or in part, in llmsla bench's output, its results and samples
// files, or in go test -v -json output and its samples file.
func TestSecretsNeverWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	cfg := sim.Default()
	cfg.Echo = true
	cfg.Faults = map[string]float64{sim.FaultEchoError: 0.3}
	srv, base := sim.Start(t, cfg)
	simEnv(t, "")
	t.Setenv("LLMSLA_TEST_ECHO_KEY", echoKey)
	useConfig(t, fmt.Sprintf(`endpoints:
  echo:
    base_url: %s?api-version=2024-10-21&api-key=%s
    model: sim
    api_key_env: LLMSLA_TEST_ECHO_KEY
    headers: {X-Tenant-Token: %s}
scenarios:
  chat:
    concurrency: [1]
    samples: 6
`, base, url.QueryEscape(echoQuery), echoHeader))

	code, stdout, stderr, dir := bench(t, "-count", "1", "-n", "4")
	// The echoed answers fail the chat accuracy minimum: exit 1, the run
	// itself complete.
	if code != 1 || !strings.Contains(stdout, "accuracy 0% <") {
		t.Fatalf("bench exit %d, want 1 for accuracy:\n%s\n%s", code, stdout, stderr)
	}
	texts := map[string]string{"bench stdout": stdout, "bench stderr": stderr}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Fatal("nothing recorded")
	}

	// The same through go test -v -json, whose output shows the answers
	// that failed the accuracy check.
	samples := filepath.Join(t.TempDir(), "v.samples.jsonl")
	cmd := exec.Command("go", "test", "-count=1", "-json", "-v", "-run", "^TestChat$", suites)
	cmd.Env = append(os.Environ(), session.Child{Samples: samples}.Env()...)
	out, _ := cmd.CombinedOutput()
	texts["go test -v -json"] = string(out)
	if !strings.Contains(string(out), "[redacted]") {
		t.Errorf("go test -v output shows no redacted answer: the test saw nothing\n%s", out)
	}
	files = append(files, samples)

	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	for what, text := range texts {
		for _, sec := range []string{echoKey, echoHeader, echoQuery} {
			if strings.Contains(text, sec[:5]) {
				i := strings.Index(text, sec[:5])
				t.Errorf("%s holds part of the secret %s…: %q", what, sec[:5], text[max(0, i-80):min(len(text), i+40)])
			}
		}
	}
	// Not blind: the server did send them back, and they were redacted.
	errors := 0
	for _, tr := range srv.Truth() {
		if tr.Fault == sim.FaultEchoError {
			errors++
		}
	}
	if all := strings.Join([]string{texts[samples], stdout}, ""); errors == 0 || strings.Count(all, "[redacted]") < 3 {
		t.Errorf("%d echo errors injected, %d redactions seen: the test saw nothing", errors, strings.Count(all, "[redacted]"))
	}
}
