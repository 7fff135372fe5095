package config

import (
	"strings"
	"testing"
)

// TestStopDecided: stop: decided is a scenario's opt-in to sequential
// levels; any other value is refused with its line and the values allowed.
func TestStopDecided(t *testing.T) {
	cfg, err := loadText(t, "scenarios:\n  chat:\n    stop: decided\n")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Scenario("chat", "e").StopDecided {
		t.Error("stop: decided not read")
	}
	if cfg.Scenario("summary", "e").StopDecided {
		t.Error("a scenario without stop: is sequential")
	}
	_, err = loadText(t, "scenarios:\n  chat:\n    stop: early\n")
	if err == nil || !strings.Contains(err.Error(), ":3") || !strings.Contains(err.Error(), "want decided or count") {
		t.Errorf("stop: early: %v; want an error naming line 3 and the values allowed", err)
	}
}
