//go:build !unix

package load_test

import "time"

func cpuTime() time.Duration { return 0 }
