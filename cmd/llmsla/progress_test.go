package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness"
)

func TestProgressLine(t *testing.T) {
	for want, ev := range map[string]harness.Progress{
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
	show := startProgress(path, &out, false)
	show.shown = time.Time{} // as if the last line were long ago
	for i := 1; i <= 3; i++ {
		b, _ := json.Marshal(harness.Progress{Cell: "chat endpoint=sim concurrency=1", Done: i, Total: 3, End: i == 3})
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
