//go:build !linux

package stream

import "net"

// leanHTTP: elsewhere every request goes through net/http (h1.go's open
// peeks with a Linux flag).
const leanHTTP = false

func open(net.Conn) bool { return false }
