package secret

import (
	"os"
	"strings"
)

// Var reports whether an environment variable holds a secret by its name
// alone, configured or not: *_API_KEY and *_TOKEN.
func Var(name string) bool {
	return strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_TOKEN")
}

// FromEnvironment is the set of the values of every secret variable (Var):
// what to redact from what is written before a configuration is loaded —
// its own loading error, which may quote a path or a value.
func FromEnvironment() *Set {
	var vals []string
	for _, kv := range os.Environ() {
		if name, val, ok := strings.Cut(kv, "="); ok && Var(name) {
			vals = append(vals, val)
		}
	}
	return New(vals...)
}
