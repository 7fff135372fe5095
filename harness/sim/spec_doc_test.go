package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/internal/modroot"
)

// TestSpecKeysDocumented: the key tables of docs/configuration.md's
// simulator section (those whose header is "| key | … |") name, in their
// first cells, every row of specTable and nothing else, so that a key
// cannot ship undocumented nor a documented key stop existing.
func TestSpecKeysDocumented(t *testing.T) {
	root, err := modroot.FromWD()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## The simulator\n")
	if !ok {
		t.Fatal("docs/configuration.md has no \"## The simulator\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	documented := documentedKeys(section)
	for _, k := range specTable {
		if !slices.Contains(documented, k.key) {
			t.Errorf("docs/configuration.md's simulator section does not document the spec key %s: add a row to one of its key tables, e.g. \"| `%s` | %s |\"", k.key, k.key, k.doc)
		}
	}
	for _, k := range documented {
		if !slices.Contains(specKeys(), k) {
			t.Errorf("docs/configuration.md's simulator section documents `%s`, which is not a spec key (the keys: %s)", k, strings.Join(specKeys(), ", "))
		}
	}
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// documentedKeys are the code spans of the first cells of the key tables
// of doc (those whose header is "| key | … |").
func documentedKeys(doc string) []string {
	var out []string
	keys := false
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			keys = false
			continue
		}
		first := strings.TrimSpace(cells[1])
		switch {
		case strings.Trim(first, "-:") == "":
		case first == "key":
			keys = true
		case keys:
			for _, m := range codeSpan.FindAllStringSubmatch(first, -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}
