//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// Without process groups, interrupts go to the go command alone.
func ownGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, s os.Signal) error { return cmd.Process.Signal(s) }
