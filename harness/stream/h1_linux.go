package stream

import (
	"net"
	"syscall"
)

// leanHTTP: the lean HTTP/1.1 path (h1.go) is taken on this system.
const leanHTTP = true

// open reports whether an idle connection is still open, and has sent
// nothing: a peek that does not wait. net/http's transport learns it from
// the reader it keeps on each idle connection; a server that closed one
// (uvicorn does after 5 s) has left an end of file to read.
func open(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = err == syscall.EAGAIN
		return true
	})
	return err == nil && alive
}
