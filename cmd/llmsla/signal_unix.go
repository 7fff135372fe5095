//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own so that signal can
// reach the test binary too: `go test` does not pass a signal on to the
// binary it runs, it counts on the terminal sending it to the whole
// foreground group, and a `kill -INT` of llmsla (or a CI runner cancelling
// the job) would otherwise leave the benchmark running.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends s to cmd's process group.
func signalGroup(cmd *exec.Cmd, s os.Signal) error {
	if sig, ok := s.(syscall.Signal); ok {
		return syscall.Kill(-cmd.Process.Pid, sig)
	}
	return cmd.Process.Signal(s)
}
