package metric

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/internal/modroot"
)

// TestDefinedInMetricsMD: every row of the table is defined in
// docs/METRICS.md, the one place definitions live: some table row there
// names it (as a word of its first cell, e.g. "error rate (`error_rate`)"),
// so that a new metric cannot be reported without a definition.
func TestDefinedInMetricsMD(t *testing.T) {
	root, err := modroot.FromWD()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "METRICS.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := definedNames(string(b))
	for _, m := range Table {
		word := regexp.MustCompile(`\b` + regexp.QuoteMeta(m.Name) + `\b`)
		found := false
		for _, n := range names {
			found = found || word.MatchString(n)
		}
		if !found {
			t.Errorf("metric %s (%s) has no row in docs/METRICS.md: name it in the first cell of its definition, e.g. \"| %s (`%s`) | … |\"",
				m.Name, Fig{m, 50}.Unit(), Fig{m, 0}.Label(), m.Name)
		}
	}
}

// definedNames returns the first cells of the markdown tables of doc,
// without backticks, header and separator rows left out.
func definedNames(doc string) []string {
	var out []string
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			continue
		}
		first := strings.TrimSpace(strings.ReplaceAll(cells[1], "`", ""))
		if first == "name" || strings.Trim(first, "-") == "" {
			continue
		}
		out = append(out, first)
	}
	return out
}
