package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDryRunRefusesWhatTheRunRefuses: -dry-run and the run share one plan
// and its checks, so a file the run would refuse — a soak of an hour
// under a 5 s duration budget, a scenario only a test runs (golden:),
// which no benchmark measures — is refused by the dry run too, exit 2
// before anything is sent, with the same message.
func TestDryRunRefusesWhatTheRunRefuses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	cases := map[string]struct {
		yaml, want string
		args       []string
	}{
		"a soak over the duration budget": {"scenarios:\n  chat: {duration: 1h, concurrency: [1]}\n",
			"the plan's levels take 1h0m0s by their own schedules (soaks, ramps, traces), over the budget of max_duration 5s", []string{"-max-duration", "5s"}},
		"a scenario no benchmark measures": {"scenarios:\n  golden: {sla: {ttft_p95_ms: 600}}\n",
			"scenarios.golden: not among the scenarios this bench measures", nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			simEnv(t, "ttft=1ms,tpot=0s,tokens=2")
			useConfig(t, "endpoints:\n  sim: {sim: \"ttft=1ms,tpot=0s,tokens=2\"}\n"+tc.yaml)
			for _, dry := range []bool{true, false} {
				args := append([]string{"-pkg", suites, "-out", t.TempDir(), "-count", "1", "-n", "2", "-q"}, tc.args...)
				if dry {
					args = append(args, "-dry-run")
				}
				var out, errOut bytes.Buffer
				code := runBench(args, &out, &errOut)
				assert.Equal(t, exitBroken, code, "dry run %v:\n%s\n%s", dry, out.String(), errOut.String())
				assert.Contains(t, errOut.String(), tc.want, "dry run %v", dry)
				assert.NotContains(t, out.String(), "recorded ", "dry run %v: nothing is sent", dry)
			}
		})
	}
}
