//go:build !unix

package session

import (
	"io"
	"os"
	"os/exec"
)

// Without process groups, interrupts go to the go command alone.
func ownGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, s os.Signal) error { return cmd.Process.Signal(s) }

// watchdog: none without process groups to kill.
func watchdog(*exec.Cmd, io.Writer) (release func()) { return func() {} }
