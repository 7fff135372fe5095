package main

import (
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/llmsla/llmsla/harness/sim"
)

// runSim serves the built-in simulator, e.g. to point another tool at it.
func runSim(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sim", "", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	spec := fs.String("spec", "", `latency model and faults, e.g. "ttft=50ms,tpot=5ms,tokens=64,fault=rate_limited:0.05"`)
	if err := parse(fs, args); err != nil {
		return parseFailed(err)
	}
	cfg := sim.Default()
	if *spec != "" {
		var err error
		if cfg, err = sim.ParseSpec(*spec); err != nil {
			return broken(stderr, "llmsla sim: -spec", err)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return broken(stderr, "llmsla sim", err)
	}
	fmt.Fprintf(stdout, "simulator serving http://%s/v1 (OPENAI_BASE_URL=http://%s/v1 LLMSLA_MODEL=sim)\n", ln.Addr(), ln.Addr())
	if err := http.Serve(ln, sim.New(cfg)); err != nil {
		return broken(stderr, "llmsla sim", err)
	}
	return exitOK
}
