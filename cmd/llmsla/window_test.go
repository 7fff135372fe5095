package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestLogWindowRefused: verdict -log and gate -log refuse a -window that
// is zero, negative or not a window (trace.CheckWindow), exit 2 before the
// log is judged: -window 0 and -1h were read as the default hour.
func TestLogWindowRefused(t *testing.T) {
	simEnv(t, "")
	log := prodLog(t, 40, "", 1, 3)
	for name, args := range map[string][]string{
		"verdict -window -1h": {"verdict", "-log", "-window", "-1h", log},
		"verdict -window 0":   {"verdict", "-log", "-window", "0", log},
		"verdict -window 0s":  {"verdict", "-log", "-window", "0s", log},
		"verdict -window 7m":  {"verdict", "-log", "-window", "7m", log},
		"gate -window -1h":    {"gate", "-log", log, "-window", "-1h", "2026-11-30T09:00Z", "2026-11-30T10:00Z"},
		"gate -window 0":      {"gate", "-log", log, "-window", "0", "2026-11-30T09:00Z", "2026-11-30T10:00Z"},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			run := runVerdict
			if args[0] == "gate" {
				run = runGate
			}
			code := run(args[1:], &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), "is not a window: want from 1m0s to a week") {
				t.Errorf("exit %d, stderr %q: want 2 and the window refused", code, errOut.String())
			}
		})
	}
}
