package progress

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
)

// syncBuffer is a bytes.Buffer safe for the shower's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFileObserves: the observer writes a level's first update at its
// start, counts its requests and errors, and writes its end, which a
// Show reads back as the level done.
func TestFileObserves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.jsonl")
	f := Open(path)
	require.NotNil(t, f)
	lv := &observe.Level{Scenario: "chat", Endpoint: "sim", Label: "concurrency=1", Total: 3}
	f.LevelStart(context.Background(), lv)
	f.Sample(lv, &sample.Sample{})
	f.Sample(lv, &sample.Sample{Err: "refused", ErrKind: sample.KindConnRefused})
	f.LevelEnd(context.Background(), lv, nil)
	require.NoError(t, f.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	var first, last Event
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	assert.Equal(t, Event{Cell: "chat endpoint=sim concurrency=1", Total: 3}, Event{Cell: first.Cell, Total: first.Total, Done: first.Done})
	assert.True(t, last.End)
	assert.Equal(t, 2, last.Done)
	assert.Equal(t, 1, last.Errors)
	assert.Nil(t, Open(""), "no path: no file")
}

func TestProgressLine(t *testing.T) {
	for want, ev := range map[string]Event{
		"chat endpoint=sim concurrency=5: 10/20 requests, 5.0/s, 1 errors, 2s elapsed, ETA 2s": {Cell: "chat endpoint=sim concurrency=5", Done: 10, Total: 20, Errors: 1, Elapsed: 2 * time.Second},
		"chat endpoint=sim rate=2: 60 requests, 2.0/s, 0 errors, 30s elapsed, ETA 30m0s":       {Cell: "chat endpoint=sim rate=2", Done: 60, Elapsed: 30 * time.Second, Until: 30*time.Minute + 30*time.Second},
		"chat endpoint=sim concurrency=1: 20/20 requests, 10.0/s, 0 errors, 2s elapsed, done":  {Cell: "chat endpoint=sim concurrency=1", Done: 20, Total: 20, Elapsed: 2 * time.Second, End: true},
	} {
		if got := Line(ev); got != want {
			t.Errorf("Line = %q, want %q", got, want)
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
	show := Start(path, &out, nil, false, Whole{})
	show.shown = time.Time{} // as if the last line were long ago
	for i := 1; i <= 3; i++ {
		b, _ := json.Marshal(Event{Cell: "chat endpoint=sim concurrency=1", Done: i, Total: 3, End: i == 3})
		f.Write(append(b, '\n'))
	}
	f.Close()
	time.Sleep(2 * poll)
	show.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "progress: chat endpoint=sim concurrency=1: 1/3 requests") {
		t.Errorf("want one throttled line, got:\n%s", out.String())
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the progress file was left behind")
	}
}

// TestProgressTerminalRedacts: the terminal line goes to the stream itself,
// not through a redacting writer, so it is redacted on its own, and shows
// before the progress ends.
func TestProgressTerminalRedacts(t *testing.T) {
	const key = "sk-in-a-cell-name-0123456789"
	path := filepath.Join(t.TempDir(), "progress.jsonl")
	b, _ := json.Marshal(Event{Cell: "chat endpoint=" + key, Done: 1, Total: 3})
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	show := Start(path, &out, secret.New(key), true, Whole{})
	defer show.Close()
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
	w := Whole{Requests: 200, Cells: 2, Count: 1, runs: map[string]int{},
		Weight: map[string]float64{"fast": 0.01, "slow": 0.1}, Total: 100*0.01 + 100*0.1}
	w.start = time.Now().Add(-time.Second) // the fast cell took a second
	w.add(Event{Cell: "fast", Done: 100, End: true})
	line := w.line(Event{Cell: "slow", Done: 0})
	if !strings.Contains(line, "run: 100/200 requests, 1/2 cells, ETA 10s") {
		t.Errorf("line %q, want the slow cell's ten seconds left", line)
	}
}
