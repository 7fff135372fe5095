//go:build !linux

package stream

import (
	"context"
	"net"
)

// leanHTTP: elsewhere every request goes through net/http (h1.go's open
// peeks with a Linux flag).
const leanHTTP = false

func open(net.Conn) bool { return false }

// direct: elsewhere a stream is read through its body's reader.
func (b *h1Body) direct(context.Context, *streamState, *lineReader, *idleWatch) (error, bool) {
	return nil, false
}
