package gateci

import (
	"strings"
	"testing"
)

// TestTail: the kept lines are the command's, not its progress, and
// bounded; the cause of a broken run is the command's last message with
// the lines that explain it.
func TestTail(t *testing.T) {
	var tl tail
	for i := range 30 {
		tl.Write([]byte("go test: line " + string(rune('a'+i%26)) + "\n"))
	}
	tl.Write([]byte("progress: chat 3/20 requests\n\r\x1b[Kchat 4/20\n"))
	tl.Write([]byte("llmsla: preflight: connection refused\n  sim: dial tcp\n"))
	tl.Write([]byte(strings.Repeat("x", 5000)))
	if got := tl.cause(); got != "llmsla: preflight: connection refused sim: dial tcp" {
		t.Errorf("cause = %q", got)
	}
	text := tl.text()
	if strings.Contains(text, "progress") || strings.Contains(text, "\x1b") || len(tl.lines) != tailLines || len(tl.partial) > 4*tailLineMax {
		t.Errorf("kept %d lines, %d bytes pending:\n%s", len(tl.lines), len(tl.partial), text)
	}
	tl.Write([]byte("\nllmsla: " + strings.Repeat("é", 2*causeMax) + "\n"))
	if c := tl.cause(); len(c) > causeMax+len("…") || !strings.HasSuffix(c, "…") || !strings.HasPrefix(c, "llmsla: é") {
		t.Errorf("a long cause is not cut on a rune: %d bytes, %q…", len(c), c[:20])
	}
}
