package junittest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/internal/ci"
)

// TestJUnitSchemaRefuses: the schema check can fail. Each document breaks one
// rule of the format and xmllint must refuse it, or Validate would pass
// anything.
func TestJUnitSchemaRefuses(t *testing.T) {
	if _, err := exec.LookPath("xmllint"); err != nil {
		if ci.On() {
			t.Fatal("no xmllint on PATH under CI=true: .ci/run installs it")
		}
		t.Skip("no xmllint on PATH (apt-get install -y libxml2-utils)")
	}
	const ok = `<testsuites tests="1" failures="1" errors="0" time="1.000"><testsuite name="s" tests="1" failures="1" errors="0" skipped="0" time="1.000" timestamp="2026-01-01T00:00:00Z"><properties><property name="commit" value="abc"></property></properties><testcase name="c" classname="k" time="1.000"><failure message="m" type="sla">x</failure></testcase></testsuite></testsuites>`
	if skip, err := lint([]byte(ok)); skip != "" || err != nil {
		t.Fatalf("the valid document is refused: %s %v", skip, err)
	}
	for name, tc := range map[string]struct{ old, new string }{
		"testcase without classname": {`classname="k" `, ``},
		"testcase without time":      {`time="1.000"><failure`, `><failure`},
		"negative count":             {`failures="1" errors="0" skipped`, `failures="-1" errors="0" skipped`},
		"time not a number":          {`time="1.000" timestamp`, `time="1s" timestamp`},
		"timestamp not a date":       {`2026-01-01T00:00:00Z`, `yesterday`},
		"failure without type":       {` type="sla"`, ``},
		"suite without skipped":      {` skipped="0"`, ``},
		"empty name":                 {`name="c"`, `name=""`},
		"unknown element":            {`<failure`, `<oops/><failure`},
		"property without value":     {` value="abc"`, ``},
	} {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(ok, tc.old, tc.new, 1)
			if bad == ok {
				t.Fatalf("%q is not in the document", tc.old)
			}
			if _, err := lint([]byte(bad)); err == nil {
				t.Errorf("xmllint accepted:\n%s", bad)
			}
		})
	}
}

// TestJUnitCountsChecked: a count that is not its cases' fails.
func TestJUnitCountsChecked(t *testing.T) {
	for name, d := range map[string]Doc{
		"suite tests":    {Tests: 2, Suites: []Suite{{Tests: 2, Cases: []Case{{}}}}},
		"suite failures": {Tests: 1, Suites: []Suite{{Tests: 1, Cases: []Case{{Failures: []Problem{{}}}}}}},
		"error and failure counted twice": {Tests: 1, Failures: 1, Errors: 1,
			Suites: []Suite{{Tests: 1, Failures: 1, Errors: 1, Cases: []Case{{Failures: []Problem{{}}, Errors: []Problem{{}}}}}}},
		"document total": {Tests: 1, Failures: 0, Suites: []Suite{{Tests: 1, Failures: 1, Cases: []Case{{Failures: []Problem{{}}}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{TB: t}
			checkCounts(r, d)
			if !r.failed {
				t.Error("not refused")
			}
		})
	}
}

// recorder notes a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
