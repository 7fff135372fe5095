package harness

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/internal/ci"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
)

// updateGolden reports whether the test binary was run with -update: the
// golden-file convention. The flag belongs to the test package (suites
// defines it); a binary without one never updates.
func updateGolden() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// goldenDir returns the golden directory of sc, "" when it compares none.
// An endpoint with nothing recorded yet is said once, with how to record,
// and its answers are not compared — rather than failing once per case: a
// first contact is not a regression. Its levels are still measured and
// judged. Under CI=true the missing goldens fail the test once: CI does not
// skip a comparison it was asked for. (With -update it records.)
func goldenDir(t *testing.T, sc Scenario, endpoint string) string {
	t.Helper()
	if sc.Golden == "" {
		return ""
	}
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	dir := filepath.Join(root, sc.Golden)
	if _, err := os.Stat(filepath.Join(dir, sample.NameValue(endpoint))); err != nil && !updateGolden() {
		say := t.Logf
		if ci.On() {
			say = t.Errorf
		}
		say("no goldens recorded for endpoint %s in %s, answers not compared: record them once with `go test ./suites/ -run %s -update` (answers are compared at temperature 0, seed %d)",
			endpoint, filepath.Join(sc.Golden, sample.NameValue(endpoint)), testName(t), *sc.Seed)
		return ""
	}
	return dir
}

// testName is the top-level test's name, for a -run pattern.
func testName(t *testing.T) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return name
}

// CheckGolden compares the first successful answer to each case with
// <dir>/<endpoint>/<case>.golden (JSON canonically, volatile fields
// scrubbed), or writes them when update is set. It returns the number of
// mismatches; each is reported on t with a diff and a .got file. opts add
// what the writer must refuse (the session's secrets).
func CheckGolden(t testing.TB, dir, endpoint string, samples []sample.Sample, update bool, opts ...quality.GoldenOption) int {
	t.Helper()
	seen := map[string]bool{}
	bad := 0
	for _, s := range samples {
		if s.Case == "" || !s.OK() || seen[s.Case] {
			continue
		}
		seen[s.Case] = true
		path, err := quality.GoldenFile(dir, sample.NameValue(endpoint), s.Case)
		if err != nil {
			t.Errorf("golden: %v", err)
			bad++
			continue
		}
		if !quality.Golden(t, path, quality.Scrub([]byte(s.Content)), update, opts...) {
			bad++
		}
	}
	return bad
}
