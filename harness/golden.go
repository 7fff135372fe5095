package harness

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/llmsla/llmsla/harness/quality"
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

// deterministic reports whether sc asks for reproducible answers, which a
// golden comparison needs.
func (sc Scenario) deterministic() bool {
	return sc.Temperature != nil && *sc.Temperature == 0 && sc.Seed != nil
}

// CheckGolden compares the first successful answer to each case with
// <dir>/<endpoint>/<case>.golden (JSON canonically, volatile fields
// scrubbed), or writes them when update is set. It returns the number of
// mismatches; each is reported on t with a diff and a .got file.
func CheckGolden(t testing.TB, dir, endpoint string, samples []Sample, update bool) int {
	t.Helper()
	seen := map[string]bool{}
	bad := 0
	for _, s := range samples {
		if s.Case == "" || !s.OK() || seen[s.Case] {
			continue
		}
		seen[s.Case] = true
		path := filepath.Join(dir, NameValue(endpoint), s.Case+".golden")
		if !quality.Golden(t, path, quality.Scrub([]byte(s.Content)), update) {
			bad++
		}
	}
	return bad
}
