package stream

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdleWatch: reads that get bytes keep the watch from firing however
// long the stream lasts, and once they stop it fires no sooner than d after
// the last one.
func TestIdleWatch(t *testing.T) {
	const d = 300 * time.Millisecond
	fired := make(chan time.Time, 1)
	w := watchIdle(d, func() { fired <- time.Now() })
	defer w.stop()
	pr, pw := io.Pipe()
	r := w.reader(pr)
	go func() { _, _ = io.Copy(io.Discard, r) }()

	// Bytes every 10 ms for 4 d: the timer must re-arm, not fire at d.
	var last time.Time
	for end := time.Now().Add(4 * d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		last = time.Now() // before the write, so before the read stamps
		_, err := pw.Write([]byte("x"))
		require.NoError(t, err)
	}
	select {
	case at := <-fired:
		t.Fatalf("fired %v before the last byte: it did not re-arm while bytes kept coming", last.Sub(at))
	default:
	}
	select {
	case at := <-fired:
		assert.GreaterOrEqual(t, at.Sub(last), d, "fired before d had passed with no bytes")
	case <-time.After(d + 10*time.Second):
		t.Fatal("did not fire once bytes stopped")
	}
	pw.Close()
}
