package docs

import (
	"bufio"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureGraph: the package graph drawn in architecture.md is the
// code's. The drawing leaves out the imports that other arrows imply, so
// what is compared is what each package reaches (directly or through
// others, non-test files only): a package the code reaches and the drawing
// does not, or the reverse, fails, and so does a package of the module
// missing from the drawing.
func TestArchitectureGraph(t *testing.T) {
	drawn, err := drawnGraph(read(t, "docs/architecture.md"))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	code := codeGraph(t)
	for _, p := range sortedKeys(code) {
		if _, ok := drawn[p]; !ok && len(code[p]) > 0 {
			t.Errorf("docs/architecture.md's graph has no node for %s, which imports %s", p, strings.Join(code[p], ", "))
		}
	}
	for _, p := range sortedKeys(union(code, drawn)) {
		want, got := reach(code, p), reach(drawn, p)
		for _, q := range want {
			if !slices.Contains(got, q) {
				t.Errorf("%s reaches %s in the code (its non-test imports), but not in docs/architecture.md's graph", p, q)
			}
		}
		for _, q := range got {
			if !slices.Contains(want, q) {
				t.Errorf("docs/architecture.md's graph has %s reach %s, which the code does not", p, q)
			}
		}
	}
}

var (
	mermaidNode = regexp.MustCompile(`(\w+)\["([^"]+)"\]`)
	mermaidEdge = regexp.MustCompile(`^\s*(\w+)(?:\["[^"]*"\])?\s*-->\s*(\w+)(?:\["[^"]*"\])?\s*$`)
)

// drawnGraph reads the ```mermaid block of doc: nodes written
// id["package"], edges id --> id, one a line.
func drawnGraph(doc string) (map[string][]string, error) {
	_, rest, ok := strings.Cut(doc, "\n```mermaid\n")
	block, _, closed := strings.Cut(rest, "\n```")
	if !ok || !closed {
		return nil, fmt.Errorf("no ```mermaid block")
	}
	names := map[string]string{}
	for _, m := range mermaidNode.FindAllStringSubmatch(block, -1) {
		names[m[1]] = m[2]
	}
	g := map[string][]string{}
	for i, line := range strings.Split(block, "\n") {
		m := mermaidEdge.FindStringSubmatch(line)
		if m == nil {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "graph ") {
				return nil, fmt.Errorf("mermaid line %d %q is not an edge id --> id", i+1, t)
			}
			continue
		}
		from, to := names[m[1]], names[m[2]]
		if from == "" || to == "" {
			return nil, fmt.Errorf("mermaid line %d: a node without its package (write id[\"harness/x\"] once)", i+1)
		}
		g[from] = append(g[from], to)
		if _, ok := g[to]; !ok {
			g[to] = nil
		}
	}
	return g, nil
}

// codeGraph is each package's imports of the module's other packages,
// from its non-test files, keyed by path relative to the module
// ("harness/load", "cmd/llmsla").
func codeGraph(t *testing.T) map[string][]string {
	t.Helper()
	module := modulePath(t)
	g := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "results" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files, or only tests: nothing to draw
		}
		rel, _ := filepath.Rel(root, path)
		var imports []string
		for _, imp := range pkg.Imports {
			if p, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, p)
			}
		}
		if rel := filepath.ToSlash(rel); rel != "docs" && rel != "." {
			g[rel] = imports
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(g["cmd/llmsla"]) == 0 || len(g["harness/config"]) == 0 {
		t.Fatalf("read the imports of %d packages, without cmd/llmsla's or harness/config's: the walk is broken", len(g))
	}
	return g
}

func modulePath(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if m, ok := strings.CutPrefix(s.Text(), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod: no module line")
	return ""
}

// reach lists what p reaches in g, sorted.
func reach(g map[string][]string, p string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, q := range g[p] {
			if !seen[q] {
				seen[q] = true
				walk(q)
			}
		}
	}
	walk(p)
	return sortedKeys(seen)
}

func union(a, b map[string][]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
