// Package junittest checks JUnit documents in tests: against the schema
// of the format (testdata/junit.xsd, validated by xmllint) and against
// themselves (every count is the count of its cases), so that a test of
// any command that writes one can say the file is what CI reads.
package junittest

import (
	_ "embed"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/llmsla/llmsla/harness/internal/ci"
)

//go:embed testdata/junit.xsd
var schema []byte

// Schema is the XSD the documents are validated against.
func Schema() []byte { return schema }

// Doc is a JUnit document as read back, for assertions on what it holds.
type Doc struct {
	Tests    int     `xml:"tests,attr"`
	Failures int     `xml:"failures,attr"`
	Errors   int     `xml:"errors,attr"`
	Suites   []Suite `xml:"testsuite"`
}

type Suite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Errors     int        `xml:"errors,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Timestamp  string     `xml:"timestamp,attr"`
	Properties []Property `xml:"properties>property"`
	Cases      []Case     `xml:"testcase"`
	Output     string     `xml:"system-out"`
}

type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type Case struct {
	Name      string    `xml:"name,attr"`
	Classname string    `xml:"classname,attr"`
	Time      string    `xml:"time,attr"`
	Failures  []Problem `xml:"failure"`
	Errors    []Problem `xml:"error"`
	Skipped   *Problem  `xml:"skipped"`
	Output    string    `xml:"system-out"`
}

type Problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Detail  string `xml:",chardata"`
}

// Property is the value of the suite's property name, "" when it has none.
func (s Suite) Property(name string) string {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// Parse reads doc back, failing the test when it is not XML.
func Parse(t testing.TB, doc []byte) Doc {
	t.Helper()
	var d Doc
	if err := xml.Unmarshal(doc, &d); err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, doc)
	}
	return d
}

// Validate checks doc against the schema with xmllint and checks that each
// count is that of its cases, and returns it parsed. Without xmllint it
// skips the schema check with a message after the others, which stops the
// test: call it last, or in a subtest. Under CI=true a missing xmllint
// fails the test (.ci/run installs it: apt-get install libxml2-utils).
func Validate(t testing.TB, doc []byte) Doc {
	t.Helper()
	d := Parse(t, doc)
	checkCounts(t, d)
	skip, err := lint(doc)
	if skip != "" && ci.On() {
		t.Fatalf("%s under CI=true: .ci/run installs it (apt-get install -y libxml2-utils)", skip)
	}
	if skip != "" {
		t.Skipf("%s (apt-get install -y libxml2-utils): the JUnit file was not checked against its schema", skip)
	}
	if err != nil {
		t.Fatalf("the JUnit file does not validate against its schema: %v\n%s", err, doc)
	}
	return d
}

// lint validates doc against the schema with xmllint: skip says why it
// could not (no xmllint), err what xmllint found.
func lint(doc []byte) (skip string, err error) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		return "no xmllint on PATH", nil
	}
	dir, err := os.MkdirTemp("", "junittest")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	xsd, file := filepath.Join(dir, "junit.xsd"), filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(xsd, schema, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		return "", err
	}
	if out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, file).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v:\n%s", err, out)
	}
	return "", nil
}

// checkCounts fails t where a count is not the count of what it counts:
// a suite's tests, failures, errors and skipped are its cases' (a case
// counts once: as an error when it has one, else as a failure, else as
// skipped), and the document's are the sums of its suites'.
func checkCounts(t testing.TB, d Doc) {
	t.Helper()
	var tests, failures, errors int
	for _, s := range d.Suites {
		var f, e, sk int
		for _, c := range s.Cases {
			switch {
			case len(c.Errors) > 0:
				e++
			case len(c.Failures) > 0:
				f++
			case c.Skipped != nil:
				sk++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			t.Errorf("suite %q counts tests=%d failures=%d errors=%d skipped=%d; its cases are %d, %d, %d, %d",
				s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk)
		}
		tests, failures, errors = tests+s.Tests, failures+s.Failures, errors+s.Errors
	}
	if d.Tests != tests || d.Failures != failures || d.Errors != errors {
		t.Errorf("testsuites counts tests=%d failures=%d errors=%d; its suites add up to %d, %d, %d",
			d.Tests, d.Failures, d.Errors, tests, failures, errors)
	}
}
