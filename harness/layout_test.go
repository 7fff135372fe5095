package harness

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
)

// TestOnlyGlueImportsTesting: the stream, load, statistics, verdict,
// configuration and report packages are usable by a program that is not
// go test. Only this package (the glue) and the Ollama test-server helpers
// may import testing in a non-test file; a core package that did would drag
// it into every command.
func TestOnlyGlueImportsTesting(t *testing.T) {
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"harness": true, "harness/ollama/ollamatest": true, "harness/report/junit/junittest": true}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "results") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "testing" && !allowed[filepath.ToSlash(dir)] {
				t.Errorf("%s imports testing: only the go test glue (harness) and the test helpers harness/ollama/ollamatest and harness/report/junit/junittest may", filepath.Join(dir, filepath.Base(path)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 40 {
		t.Fatalf("checked %d files: the walk did not find the module's sources", checked)
	}
}
