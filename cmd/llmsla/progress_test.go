package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/session"
)

func TestProgressLine(t *testing.T) {
	for want, ev := range map[string]session.Progress{
		"chat endpoint=sim concurrency=5: 10/20 requests, 5.0/s, 1 errors, 2s elapsed, ETA 2s": {Cell: "chat endpoint=sim concurrency=5", Done: 10, Total: 20, Errors: 1, Elapsed: 2 * time.Second},
		"chat endpoint=sim rate=2: 60 requests, 2.0/s, 0 errors, 30s elapsed, ETA 30m0s":       {Cell: "chat endpoint=sim rate=2", Done: 60, Elapsed: 30 * time.Second, Until: 30*time.Minute + 30*time.Second},
		"chat endpoint=sim concurrency=1: 20/20 requests, 10.0/s, 0 errors, 2s elapsed, done":  {Cell: "chat endpoint=sim concurrency=1", Done: 20, Total: 20, Elapsed: 2 * time.Second, End: true},
	} {
		if got := progressLine(ev); got != want {
			t.Errorf("progressLine = %q, want %q", got, want)
		}
	}
}

// TestProgressPlain: off a terminal, progress is a plain line at most every
// plainEvery, read from the file the test binary appends to, and the file
// is removed at the end.
func TestProgressPlain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	show := startProgress(path, &out, nil, false, wholeRun{})
	show.shown = time.Time{} // as if the last line were long ago
	for i := 1; i <= 3; i++ {
		b, _ := json.Marshal(session.Progress{Cell: "chat endpoint=sim concurrency=1", Done: i, Total: 3, End: i == 3})
		f.Write(append(b, '\n'))
	}
	f.Close()
	time.Sleep(2 * progressPoll)
	show.close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "progress: chat endpoint=sim concurrency=1: 1/3 requests") {
		t.Errorf("want one throttled line, got:\n%s", out.String())
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the progress file was left behind")
	}
}

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

// TestProgressTerminalRedacts: the terminal line goes to the stream itself,
// not through a redacting writer, so it is redacted on its own, and shows
// before the progress ends.
func TestProgressTerminalRedacts(t *testing.T) {
	const key = "sk-in-a-cell-name-0123456789"
	path := filepath.Join(t.TempDir(), "progress.jsonl")
	b, _ := json.Marshal(session.Progress{Cell: "chat endpoint=" + key, Done: 1, Total: 3})
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	show := startProgress(path, &out, secret.New(key), true, wholeRun{})
	defer show.close()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "1/3 requests") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := out.String()
	if !strings.HasPrefix(got, "\r\033[Kchat endpoint=[redacted]: 1/3 requests") || strings.Contains(got, key) {
		t.Errorf("terminal line = %q, want it shown, the key redacted", got)
	}
}

// TestWholeRunETA: the whole run's ETA weighs each cell's requests by its
// probed time a request: after a fast cell of 100 requests, the slow cell
// of 100 left (ten times the time a request) is most of the run, not
// half of it.
func TestWholeRunETA(t *testing.T) {
	w := wholeRun{requests: 200, cells: 2, count: 1, runs: map[string]int{},
		weight: map[string]float64{"fast": 0.01, "slow": 0.1}, total: 100*0.01 + 100*0.1}
	w.start = time.Now().Add(-time.Second) // the fast cell took a second
	w.add(session.Progress{Cell: "fast", Done: 100, End: true})
	line := w.line(session.Progress{Cell: "slow", Done: 0})
	if !strings.Contains(line, "run: 100/200 requests, 1/2 cells, ETA 10s") {
		t.Errorf("line %q, want the slow cell's ten seconds left", line)
	}
}
