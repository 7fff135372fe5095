package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// isTerminal reports whether w is a character device (a terminal): the
// progress line is then drawn in place. A variable, for a test to stand a
// buffer in for a terminal.
var isTerminal = terminalFile

func terminalFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// interrupts is a context cancelled by SIGINT or SIGTERM (an *interrupted
// cause): every sending command stops alike — what is in flight cancelled,
// what was recorded kept whole (a partial run), said, exit 2 — also on a
// signal a shell ignores for a background job (`kill -INT` of one).
func interrupts() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			cancel(&interrupted{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel(nil)
	}
}

// interrupted is the cause of a context a signal cancelled.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// why is a send's error, said as the signal when one stopped it.
func why(ctx context.Context, err error) error {
	var in *interrupted
	if cause := context.Cause(ctx); errors.As(cause, &in) {
		return in
	}
	return err
}
