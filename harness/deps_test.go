package harness

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
)

const module = "github.com/llmsla/llmsla/"

// depRule says what a package of the module must not reach, directly or
// through any package it imports (the non-test code that links into it).
type depRule struct {
	pkg    string   // relative to the module
	never  []string // import paths (relative to the module when they start with harness/ or cmd/)
	reason string
}

// depRules is the dependency rule of docs/architecture.md: the data at the
// bottom, what people read apart from what measures, the gate apart from
// what sends, and no command or pipeline package linking testing.
var depRules = []depRule{
	{"cmd/llmsla", []string{"testing", "net/http/httptest", "harness"}, "the command is a program: only go test links testing and the go test glue"},
	{"harness/sample", []string{"harness/*"}, "the data package: every other part passes samples along, it depends on none of them (but the leaf harness/escape, which imports nothing of the module, for the names it checks)"},
	{"harness/report", []string{"harness/stream", "harness/sim", "harness/gate", "harness/load", "harness/config", "harness/session"}, "what people read is a view over samples and verdicts, usable without what measures"},
	{"harness/report/html", []string{"harness/stream", "harness/sim", "harness/gate", "harness/load", "harness/config", "harness/session"}, "as harness/report"},
	{"harness/gate", []string{"harness/load", "harness/stream", "harness/sim", "harness/config", "harness/session"}, "the gate compares recorded runs; it sends nothing"},
	{"harness/session", []string{"testing", "net/http/httptest"}, "the orchestrator runs under a command as under go test"},
	{"harness/stats", []string{"harness/quality"}, "the figures of a run are counted from samples; the checks that made them (and JSON Schema) are quality's"},
}

// configImporters may import harness/config: it is the top of the
// pipeline, naming what it configures in every stage, so nothing below may
// depend on it.
var configImporters = []string{"harness", "harness/session", "cmd/llmsla"}

// TestDependencyRule checks depRules and configImporters over the real
// graph (go list -deps), transitively, naming the chain of imports that
// breaks a rule.
func TestDependencyRule(t *testing.T) {
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, "\t")
		imports[pkg] = strings.Fields(imps)
	}
	if len(imports) < 20 {
		t.Fatalf("go list found %d packages: not the module's graph", len(imports))
	}
	for _, r := range depRules {
		pkg := module + r.pkg
		if _, ok := imports[pkg]; !ok {
			t.Errorf("rule for %s: no such package", r.pkg)
			continue
		}
		for _, chain := range reach(imports, pkg, r.never) {
			t.Errorf("%s reaches %s (%s): %s", r.pkg, strings.TrimPrefix(chain[len(chain)-1], module), r.reason, strings.Join(short(chain), " → "))
		}
	}
	for _, leaf := range leaves {
		for _, imp := range imports[module+leaf] {
			if strings.HasPrefix(imp, module) {
				t.Errorf("%s imports %s: a leaf the data package may use imports nothing of the module", leaf, strings.TrimPrefix(imp, module))
			}
		}
	}
	for pkg, imps := range imports {
		if slices.Contains(imps, module+"harness/config") && strings.HasPrefix(pkg, module) && !slices.Contains(configImporters, strings.TrimPrefix(pkg, module)) {
			t.Errorf("%s imports harness/config: only %s may (config is the top)", strings.TrimPrefix(pkg, module), strings.Join(configImporters, ", "))
		}
	}
}

// reach returns, for each package matching never that from reaches, the
// chain of imports from from to it (depth first, each package once).
func reach(imports map[string][]string, from string, never []string) [][]string {
	var found [][]string
	seen := map[string]bool{from: true}
	var walk func(chain []string)
	walk = func(chain []string) {
		for _, imp := range imports[chain[len(chain)-1]] {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			next := append(slices.Clone(chain), imp)
			if forbidden(imp, from, never) {
				found = append(found, next)
			}
			walk(next)
		}
	}
	walk([]string{from})
	return found
}

// leaves are packages of the module that import none of it (checked), which
// the data package may use: escape's name checks are what a sample's names
// are checked with.
var leaves = []string{"harness/escape", "harness/internal/jsonl"}

// forbidden reports whether imp matches one of never, where "harness/*"
// is every harness package other than from itself and the leaves.
func forbidden(imp, from string, never []string) bool {
	for _, n := range never {
		switch {
		case strings.HasSuffix(n, "/*"):
			if strings.HasPrefix(imp, module+strings.TrimSuffix(n, "*")) && imp != from && !slices.Contains(leaves, strings.TrimPrefix(imp, module)) {
				return true
			}
		case strings.HasPrefix(n, "harness") || strings.HasPrefix(n, "cmd/"):
			if imp == module+n {
				return true
			}
		case imp == n:
			return true
		}
	}
	return false
}

func short(chain []string) []string {
	out := make([]string, len(chain))
	for i, p := range chain {
		out[i] = strings.TrimPrefix(p, module)
	}
	return out
}
