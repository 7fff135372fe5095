// Package junit writes test results as JUnit XML, the file CI services
// read to show which tests failed (GitHub's test reporters, GitLab's
// artifacts:reports:junit, Jenkins): llmsla's verdicts and gate findings
// are written in it so that a violated objective or a regression appears
// where a pipeline shows failed tests.
//
// The format is the one Ant's XMLJUnitResultFormatter writes and the
// Jenkins plugins read (their junit-10 schema): testsuites holding
// testsuite elements (name, tests, failures, errors, skipped, time,
// timestamp), each with its properties and testcase elements (name,
// classname, time) that hold a failure, an error or a skipped element
// (message, type) when they did not pass. testdata/junit.xsd is that
// format as a schema, which the tests validate every document against.
//
// Names and messages come from endpoints and files, so they are hostile:
// [Write] replaces every character XML 1.0 forbids (the C0 controls but
// tab, newline and CR; unpaired surrogates; U+FFFE, U+FFFF; invalid
// UTF-8), and those that act where the file is shown (DEL, C1, bidi
// controls), with its Go escape (\x1b), so that the document parses and
// shows what was sent, and passes every string through the caller's redactor.
// The counts of each suite are computed from its cases, never given.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/escape"
)

// Suites is a document: one testsuite per command's subject (a run's
// verdicts, a gate's comparison).
type Suites struct {
	Name   string
	Suites []Suite
}

// Suite is a group of cases run together, with what they ran against.
type Suite struct {
	Name string
	// Timestamp is when the run started; zero leaves it out.
	Timestamp  time.Time
	Time       time.Duration
	Properties []Property
	Cases      []Case
	// Output is shown beside the suite (system-out): notes and warnings
	// that belong to no one case.
	Output string
}

// Property is a name and a value the run was made with (commit, config,
// an endpoint and its model).
type Property struct{ Name, Value string }

// Case is one test: it passed unless it has a failure, an error or a
// skip. A case counts once, as an error when it has one, else as a
// failure when it has some, else as skipped when it was.
type Case struct {
	Classname, Name string
	Time            time.Duration
	// Failures are the checks it failed, one element each (a violated
	// objective, a regressed figure).
	Failures []Problem
	// Errors say why it could not be judged (a figure not measured, a run
	// that did not finish).
	Errors []Problem
	// Skipped says why it was not judged although nothing is wrong with
	// it (a shard's share of a run, a figure with too few runs).
	Skipped *Problem
	// Output is shown beside the case (system-out).
	Output string
}

// Problem is a failure, an error or a skip: Message is its one line, Type
// its kind ("sla", "not-measured", "regression"), Detail more lines.
type Problem struct{ Message, Type, Detail string }

// Outcome says how a case counts: "error", "failure", "skipped" or
// "passed".
func (c Case) Outcome() string {
	switch {
	case len(c.Errors) > 0:
		return "error"
	case len(c.Failures) > 0:
		return "failure"
	case c.Skipped != nil:
		return "skipped"
	}
	return "passed"
}

// Count is how many of the cases count as each outcome.
func Count(cases []Case) map[string]int {
	n := map[string]int{}
	for _, c := range cases {
		n[c.Outcome()]++
	}
	return n
}

// Write writes d as JUnit XML to w, every string passed through redact
// (nil: as it is) and then made valid XML 1.0 text.
func Write(w io.Writer, d Suites, redact func(string) string) error {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	clean := func(s string) string { return Clean(redact(s)) }
	doc := xmlSuites{Name: clean(d.Name)}
	var total time.Duration
	for _, s := range d.Suites {
		xs := suite(s, clean)
		doc.Tests += xs.Tests
		doc.Failures += xs.Failures
		doc.Errors += xs.Errors
		total += s.Time
		doc.Suites = append(doc.Suites, xs)
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func suite(s Suite, clean func(string) string) xmlSuite {
	n := Count(s.Cases)
	xs := xmlSuite{Name: clean(s.Name), Tests: len(s.Cases), Failures: n["failure"], Errors: n["error"], Skipped: n["skipped"],
		Time: seconds(s.Time), Output: clean(s.Output)}
	if !s.Timestamp.IsZero() {
		xs.Timestamp = s.Timestamp.UTC().Format(time.RFC3339)
	}
	for _, p := range s.Properties {
		xs.Properties = append(xs.Properties, xmlProperty{clean(p.Name), clean(p.Value)})
	}
	for _, c := range s.Cases {
		xc := xmlCase{Name: clean(c.Name), Classname: clean(c.Classname), Time: seconds(c.Time), Output: clean(c.Output)}
		for _, f := range c.Failures {
			xc.Failures = append(xc.Failures, problem(f, clean))
		}
		for _, e := range c.Errors {
			xc.Errors = append(xc.Errors, problem(e, clean))
		}
		if c.Skipped != nil {
			p := problem(*c.Skipped, clean)
			xc.Skipped = &p
		}
		xs.Cases = append(xs.Cases, xc)
	}
	return xs
}

func problem(p Problem, clean func(string) string) xmlProblem {
	return xmlProblem{Message: clean(p.Message), Type: clean(p.Type), Detail: clean(p.Detail)}
}

// seconds is d as JUnit writes times: seconds with millisecond digits.
func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.3f", d.Seconds())
}

// Clean makes s valid XML 1.0 character data that a CI page or a
// terminal shows as it is: each character the specification's Char
// production excludes, each byte of invalid UTF-8, and each rune that
// acts where it is shown (DEL and the C1 controls, which XML 1.0 allows
// but discourages, an 8-bit CSI among them; the bidi controls, which make
// "ok" of "failed") is written as its Go escape (\x1b, \ufffe, \u202e).
// Tab, newline and CR are kept: they are characters XML allows.
func Clean(s string) string {
	if valid(s) {
		return escape.Lines(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !isChar(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return escape.Lines(b.String())
}

func valid(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !isChar(r) {
			return false
		}
		i += n
	}
	return true
}

// isChar is XML 1.0's Char production (section 2.2).
func isChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// The document as encoding/xml writes it.
type (
	xmlSuites struct {
		XMLName  xml.Name   `xml:"testsuites"`
		Name     string     `xml:"name,attr,omitempty"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Errors   int        `xml:"errors,attr"`
		Time     string     `xml:"time,attr"`
		Suites   []xmlSuite `xml:"testsuite"`
	}
	xmlSuite struct {
		Name       string        `xml:"name,attr"`
		Tests      int           `xml:"tests,attr"`
		Failures   int           `xml:"failures,attr"`
		Errors     int           `xml:"errors,attr"`
		Skipped    int           `xml:"skipped,attr"`
		Time       string        `xml:"time,attr"`
		Timestamp  string        `xml:"timestamp,attr,omitempty"`
		Properties []xmlProperty `xml:"properties>property,omitempty"`
		Cases      []xmlCase     `xml:"testcase"`
		Output     string        `xml:"system-out,omitempty"`
	}
	xmlProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	xmlCase struct {
		Name      string       `xml:"name,attr"`
		Classname string       `xml:"classname,attr"`
		Time      string       `xml:"time,attr"`
		Failures  []xmlProblem `xml:"failure"`
		Errors    []xmlProblem `xml:"error"`
		Skipped   *xmlProblem  `xml:"skipped"`
		Output    string       `xml:"system-out,omitempty"`
	}
	xmlProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Detail  string `xml:",chardata"`
	}
)
