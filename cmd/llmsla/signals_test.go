package main

import (
	"io"
	"strings"
	"testing"
)

// TestBenchProgressOnTerminal: on a terminal the progress line shows while
// the run goes, also when a key is set (the redactor of stderr holds bytes
// until a newline, and a progress line has none), and no key shows.
// stdout and stderr are one buffer, as on a terminal, so that the order
// says when the line was written: before the run's "recorded" line, not
// when the redactor is closed at exit.
func TestBenchProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "ttft=5ms,tpot=1ms")
	const key = "sk-progress-test-key-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	isTerminal = func(io.Writer) bool { return true }
	defer func() { isTerminal = terminalFile }()
	var out syncBuffer
	code := runBench([]string{"-pkg", suites, "-bench", "Chat", "-out", t.TempDir(), "-count", "1", "-n", "3"}, &out, &out)
	got := out.String()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	line := strings.Index(got, "\r\033[Kchat endpoint=sim concurrency=1: ")
	recorded := strings.Index(got, "\nrecorded ")
	if line < 0 || recorded < 0 || line > recorded {
		t.Errorf("the progress line (at %d) does not show before the run ends (recorded at %d):\n%q", line, recorded, got)
	}
	if strings.Contains(got, key) {
		t.Errorf("the key shows:\n%s", got)
	}
}
