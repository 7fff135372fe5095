// Package suites holds llmsla's scenarios as Go tests and benchmarks. Each
// scenario is a few lines: what to ask (a fixture) and how to judge it; the
// endpoints, sample counts, concurrency levels and SLA thresholds come from
// sla.yaml (or the built-in simulator when none is configured).
//
//	go test ./suites/...                       # SLA verdicts as pass/fail
//	go test -run '^$' -bench . ./suites/...    # figures in benchfmt
package suites

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
)

// TestDocumentedScenariosShip: the scenario code README.md and
// docs/scenarios.md show is code this package compiles and runs: each
// ```go block, its comments left out, is part of a file of suites/ (the
// README shows suites/extraction_test.go whole). A renamed function or field
// then fails here, not in the hands of a reader who copied it.
func TestDocumentedScenariosShip(t *testing.T) {
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := filepath.Glob(filepath.Join(root, "suites", "*_test.go"))
	if err != nil || len(shipped) == 0 {
		t.Fatalf("no suites/*_test.go (%v)", err)
	}
	var code []string
	for _, f := range shipped {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code = append(code, goTokens(string(b)))
	}
	for _, doc := range []string{"README.md", "docs/scenarios.md"} {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		blocks := goBlocks(string(b))
		if len(blocks) == 0 {
			t.Errorf("%s shows no ```go scenario", doc)
		}
		for _, block := range blocks {
			found := false
			for _, c := range code {
				found = found || strings.Contains(c, goTokens(block))
			}
			if !found {
				t.Errorf("%s shows a scenario that no file of suites/ holds:\n%s", doc, block)
			}
		}
	}
}

var (
	goFence     = regexp.MustCompile("(?s)\n```go\n(.*?)\n```")
	lineComment = regexp.MustCompile(`//[^\n]*`)
)

// goBlocks are the ```go code blocks of a Markdown text.
func goBlocks(doc string) []string {
	var out []string
	for _, m := range goFence.FindAllStringSubmatch(doc, -1) {
		out = append(out, m[1])
	}
	return out
}

// goTokens is Go source without line comments, its white space runs made
// one space: what is left must match word for word. (No string in these
// files holds "//".)
func goTokens(src string) string {
	return " " + strings.Join(strings.Fields(lineComment.ReplaceAllString(src, "")), " ") + " "
}
