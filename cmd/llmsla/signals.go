package main

import (
	"context"
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

// interrupts is a context cancelled by SIGINT or SIGTERM: every command
// that sends stops what it sends on either, the same way — what is in
// flight is cancelled, what was recorded is kept whole, a message says
// so, and it exits 2.
func interrupts() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
