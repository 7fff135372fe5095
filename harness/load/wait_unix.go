//go:build linux || freebsd || netbsd || openbsd || dragonfly

package load

import (
	"syscall"
	"time"
)

func init() {
	threadSleep = func(d time.Duration) {
		ts := syscall.NsecToTimespec(int64(d))
		syscall.Nanosleep(&ts, nil) // an interrupted sleep ends early: the yields finish the wait
	}
}
