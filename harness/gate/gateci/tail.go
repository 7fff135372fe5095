package gateci

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"
)

// tail keeps the last lines a command wrote on stderr, progress lines
// aside, bounded: what a broken run's JUnit error and summary say.
type tail struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
}

const (
	tailLines   = 20
	tailLineMax = 500
	// causeMax bounds the cause a broken run's headline quotes.
	causeMax = 1000
)

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4*tailLineMax {
		t.partial = t.partial[len(t.partial)-4*tailLineMax:]
	}
	return len(p), nil
}

func (t *tail) add(line string) {
	if strings.HasPrefix(line, "progress: ") || strings.Contains(line, "\x1b[K") || strings.TrimSpace(line) == "" {
		return
	}
	t.lines = append(t.lines, cut(line, tailLineMax))
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

// cause is the last of the command's own messages ("llmsla: …") with
// the lines after it that are not another's — a message of several
// lines ("llmsla: preflight …:" then why, indented) — on one line,
// bounded: the first line alone would say that the run broke, not why.
func (t *tail) cause() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(t.lines[i], "llmsla") {
			continue
		}
		parts := []string{t.lines[i]}
		for _, l := range t.lines[i+1:] {
			parts = append(parts, strings.TrimSpace(l))
		}
		return cut(strings.Join(parts, " "), causeMax)
	}
	return ""
}

// text is the lines kept.
func (t *tail) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// cut is s cut to at most n bytes, on a rune's start, marked with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
