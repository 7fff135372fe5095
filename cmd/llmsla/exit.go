package main

import (
	"fmt"
	"io"
)

// Exit codes, the same for every command, so that CI can tell a failed
// objective from a broken run: 0 every objective met (or the report
// written), 1 an objective violated or a regression found, 2 the run or
// its input is unusable (bad configuration, a missing file, an endpoint
// that cannot be reached, go test broke) — nothing was judged.
const (
	exitOK       = 0
	exitViolated = 1
	exitBroken   = 2
)

// exitWords says what an exit code means, for the last line of a run.
func exitWords(code int) string {
	switch code {
	case exitOK:
		return "exit 0: every objective met"
	case exitViolated:
		return "exit 1: an objective was violated"
	}
	return "exit 2: the run is broken or could not be judged (above)"
}

// broken says a command's error and is the exit code of a broken run.
func broken(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
	return exitBroken
}
