// Package ci says whether the tests run under CI, where a test that cannot
// get what it needs (Ollama, Chromium, a golden file) fails instead of
// skipping: a CI run that silently skips proves nothing.
package ci

import (
	"os"
	"strconv"
)

// On reports whether CI is set to a true value (CI=true, CI=1), as CI
// services and .ci/run do.
func On() bool {
	on, _ := strconv.ParseBool(os.Getenv("CI"))
	return on
}
