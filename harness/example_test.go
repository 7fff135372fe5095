package harness_test

import (
	"fmt"

	"github.com/llmsla/llmsla/harness"
)

// Benchmark names are key=value pairs; a value that benchfmt would misread
// is escaped.
func ExampleNameValue() {
	fmt.Println(harness.NameValue("gpt-4"), harness.NameValue("meta-llama/Llama-3.1-8B"))
	// Output: gpt_4 meta-llama_Llama-3.1-8B
}
