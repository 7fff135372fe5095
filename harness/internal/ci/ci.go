// Package ci says whether the process runs under CI, where a test that
// cannot get what it needs (Ollama, Chromium, a golden file) fails instead
// of skipping — a CI run that silently skips proves nothing — and where
// llmsla measures the built-in simulator only when asked to.
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

// Under reports whether the process runs in a CI job: CI set true, or
// GitHub Actions (GITHUB_ACTIONS=true in every step).
func Under() bool { return On() || os.Getenv("GITHUB_ACTIONS") == "true" }
