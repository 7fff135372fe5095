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
	names := definedNames(readDoc(t, "METRICS.md"))
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

// TestSLAKeysInConfigurationMD: the "SLA keys" paragraph of
// docs/configuration.md names every SLA key the table accepts (Keys,
// which configuration errors list), so that a metric cannot take a
// threshold the reference does not mention.
func TestSLAKeysInConfigurationMD(t *testing.T) {
	_, list, ok := strings.Cut(readDoc(t, "configuration.md"), "\nSLA keys (")
	list, _, _ = strings.Cut(list, "\n\n")
	if !ok {
		t.Fatal("docs/configuration.md has no paragraph starting \"SLA keys (\"")
	}
	for _, key := range strings.Split(Keys(), ", ") {
		if !strings.Contains(list, "`"+key+"`") {
			t.Errorf("docs/configuration.md's SLA keys paragraph does not name `%s` (the keys: %s)", key, Keys())
		}
	}
}

// definedNames returns the first cells of the definition tables of doc
// (those whose header is "| name | definition |"), without backticks. The
// other tables there (error kinds, the samples file's fields) name things
// that are not definitions: a metric named only in them is undefined.
func definedNames(doc string) []string {
	var out []string
	definitions := false
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			definitions = false
			continue
		}
		first := strings.TrimSpace(strings.ReplaceAll(cells[1], "`", ""))
		switch {
		case strings.Trim(first, "-:") == "":
		case first == "name":
			definitions = true
		case definitions:
			out = append(out, first)
		}
	}
	return out
}

// readDoc is the text of docs/name.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	root, err := modroot.FromWD()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
