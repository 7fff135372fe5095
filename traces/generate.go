//go:build ignore

// generate writes the shipped synthetic trace, sample.mooncake.jsonl:
// bursty arrivals, long-tailed lengths and shared prefixes, as
// trace.Shipped describes them. Run from the module root:
//
//	go run traces/generate.go > traces/sample.mooncake.jsonl
//
// TestShippedTrace fails when the file is not what this writes.
package main

import (
	"fmt"
	"os"

	"github.com/llmsla/llmsla/harness/trace"
)

func main() {
	if err := trace.Generate(os.Stdout, trace.Shipped); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}
