package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestDocumentedPlans: docs/gate.md shows what llmsla gate -plan prints on
// the committed golden/baseline.txt. -plan reads only that file, so its
// output is fixed: each line the docs show (the others are elided with …)
// must be a line of the command's output today, and a re-recorded
// baseline or a changed power model shows up here instead of in a
// reader's surprise.
func TestDocumentedPlans(t *testing.T) {
	slaFile(t, "")
	doc, err := os.ReadFile("../../docs/gate.md")
	if err != nil {
		t.Fatal(err)
	}
	var checked int
	for _, block := range strings.Split(string(doc), "\n$ llmsla gate -plan ")[1:] {
		lines := strings.Split(block, "\n")
		args := strings.Fields(lines[0])
		if len(args) == 0 || args[len(args)-1] != "golden/baseline.txt" {
			continue
		}
		args[len(args)-1] = "../../golden/baseline.txt"
		var stdout, stderr bytes.Buffer
		if code := runGate(append([]string{"-plan"}, args...), &stdout, &stderr); code != 0 {
			t.Errorf("llmsla gate -plan %s: exit %d: %s", lines[0], code, &stderr)
			continue
		}
		got := strings.Split(stdout.String(), "\n")
		for _, want := range lines[1:] {
			if want == "" || want == "…" || strings.HasPrefix(want, "```") || strings.HasPrefix(want, "$ ") {
				break
			}
			checked++
			found := false
			for _, g := range got {
				found = found || g == want
			}
			if !found {
				t.Errorf("docs/gate.md shows, after llmsla gate -plan %s:\n%s\nwhich it no longer prints; it prints:\n%s", lines[0], want, &stdout)
			}
		}
	}
	if checked < 8 {
		t.Errorf("checked %d documented -plan lines, want the ≥ 8 docs/gate.md has", checked)
	}
}
