package sample_test

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/sample"
)

// Benchmark names are key=value pairs; a value that benchfmt would misread
// is escaped.
func ExampleNameValue() {
	fmt.Println(sample.NameValue("gpt-4"), sample.NameValue("meta-llama/Llama-3.1-8B"))
	// Output: gpt_4 meta-llama_Llama-3.1-8B
}

// A load level is key=value labels, read back by key.
func ExampleLevel() {
	l := sample.NewLevel("prompt_tokens", 1024).With("concurrency", 5)
	c, _ := l.Float("concurrency")
	fmt.Println(l, c)
	// Output: prompt_tokens=1024/concurrency=5 5
}
