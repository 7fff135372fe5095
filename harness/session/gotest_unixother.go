//go:build unix && !linux

package session

import "syscall"

// dieWithParent: no parent-death signal here; the watchdog alone kills
// go test's process group when llmsla dies.
func dieWithParent(*syscall.SysProcAttr) {}
