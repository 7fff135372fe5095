package config

import (
	"strings"
	"testing"
)

// TestCasePassKey: case_pass_min takes {k, pass}; a number, a missing
// or unknown key, or pass beyond k is its line and what is allowed.
func TestCasePassKey(t *testing.T) {
	cfg, err := loadText(t, "scenarios:\n  chat:\n    sla: {case_pass_min: {k: 3, pass: 2}}\n")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, th := range cfg.Objectives("chat", "e") {
		if th.Key() == "case_pass_min" {
			found = true
			if th.K != 3 || th.String() != "case pass: every case passes 2 of 3 tries" {
				t.Errorf("read %+v: %s", th, th)
			}
		}
	}
	if !found {
		t.Error("case_pass_min not among the objectives")
	}
	for text, want := range map[string]string{
		"sla: {case_pass_min: 1}":                 "want {k: N, pass: M}",
		"sla: {case_pass_min: {k: 3}}":            "want both k and pass",
		"sla: {case_pass_min: {k: 3, passes: 3}}": "unknown key (allowed: k, pass)",
		"sla: {case_pass_min: {k: 2, pass: 3}}":   "want 1 ≤ pass ≤ k",
	} {
		_, err := loadText(t, "scenarios:\n  chat:\n    "+text+"\n")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ":3") {
			t.Errorf("%s: %v; want line 3 and %q", text, err, want)
		}
	}
}
