package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sim"
)

// TestBenchNeverWritesTheKey: a run against an endpoint with an API key
// leaves the key in no output and no recorded file.
func TestBenchNeverWritesTheKey(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	const key = "sk-llmsla-test-0123456789abcdef"
	_, url := sim.Start(t, sim.Default())
	simEnv(t, "")
	t.Setenv("OPENAI_BASE_URL", url+"?api-key="+key) // a key in the URL, as some gateways take it
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv(config.EnvModel, "sim")
	code, stdout, stderr, dir := bench(t, "-count", "1", "-n", "3")
	// The simulator answers lorem ipsum, which fails the chat accuracy
	// minimum: exit 1, the run itself complete.
	if code != 1 || !strings.Contains(stdout, "accuracy 0% < 90%") {
		t.Fatalf("bench exit %d, want 1 for accuracy:\n%s\n%s", code, stdout, stderr)
	}
	for name, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(text, key) {
			t.Errorf("%s holds the API key", name)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Fatal("nothing recorded")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), key) {
			t.Errorf("%s holds the API key", f)
		}
	}
}
