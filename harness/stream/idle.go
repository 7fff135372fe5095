package stream

import (
	"io"
	"sync/atomic"
	"time"
)

// idleWatch ends a stream that has received no bytes for d. Resetting a
// runtime timer on every SSE line cost about 150 ns a line, a third of the
// loop's own cost per chunk; here each read of the body stamps the time
// instead (an atomic store), and the timer, when it fires, re-arms itself
// for what is left of d since the last stamp, so it wakes about once per d.
type idleWatch struct {
	d     time.Duration
	base  time.Time    // monotonic origin of last
	last  atomic.Int64 // time since base of the last read that got bytes
	t     *time.Timer
	fire  func()
	ended atomic.Bool
}

func watchIdle(d time.Duration, fire func()) *idleWatch {
	w := &idleWatch{d: d, base: time.Now(), fire: fire}
	w.t = time.AfterFunc(d, w.check)
	return w
}

func (w *idleWatch) check() {
	if w.ended.Load() {
		return
	}
	if left := w.d - (time.Since(w.base) - time.Duration(w.last.Load())); left > 0 {
		w.t.Reset(left)
		return
	}
	w.fire()
}

func (w *idleWatch) stop() {
	w.ended.Store(true)
	w.t.Stop()
}

// reader returns r with every read that gets bytes stamped.
func (w *idleWatch) reader(r io.Reader) io.Reader { return idleReader{r, w} }

type idleReader struct {
	r io.Reader
	w *idleWatch
}

func (ir idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.w.last.Store(int64(time.Since(ir.w.base)))
	}
	return n, err
}
