package suites

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness"
	"github.com/llmsla/llmsla/harness/config"
)

// TestDocumentedConfigsLoad: the SLA files the documentation offers to
// copy load as they are, and name only scenarios these suites define:
// sla.example.yaml, the same with every commented-out option
// ("#   key: value") switched on, the reference in docs/configuration.md,
// and the files of README.md, docs/model-selection.md and docs/ollama.md.
func TestDocumentedConfigsLoad(t *testing.T) {
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(root, "sla.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"sla.example.yaml":                      string(example),
		"sla.example.yaml, options switched on": regexp.MustCompile(`(?m)^(\s*)#   `).ReplaceAllString(string(example), "$1"),
	}
	for _, doc := range []struct{ file, heading string }{
		{"docs/configuration.md", "## Reference (`sla.yaml`)"},
		{"README.md", "## Pointing it at a real endpoint"},
		{"docs/model-selection.md", "# Choosing a model"},
		{"docs/ollama.md", "## Measuring your own local model"},
	} {
		text, err := os.ReadFile(filepath.Join(root, doc.file))
		if err != nil {
			t.Fatal(err)
		}
		block, err := fencedAfter(string(text), doc.heading, "yaml")
		if err != nil {
			t.Fatalf("%s: %v", doc.file, err)
		}
		files[doc.file+", "+doc.heading] = block
	}
	for name, text := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sla.yaml")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.LoadFile(path)
			if err != nil {
				t.Fatalf("%s does not load:\n%v", name, err)
			}
			if err := cfg.CheckScenarios(harness.Defined()); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		})
	}
}

// fencedAfter is the first code block of the given language after the
// line that starts with heading.
func fencedAfter(text, heading, lang string) (string, error) {
	_, rest, ok := strings.Cut("\n"+text, "\n"+heading)
	if ok {
		_, rest, ok = strings.Cut(rest, "\n```"+lang+"\n")
	}
	block := ""
	if ok {
		block, _, ok = strings.Cut(rest, "\n```")
	}
	if !ok {
		return "", fmt.Errorf("no ```%s block after %q", lang, heading)
	}
	return block + "\n", nil
}
