// Package rubric is what a judge is asked to hold an answer to, and how it
// is asked: a [Rubric] (a YAML file, fixtures/rubrics/) says in words what
// a good answer is, on a scale — pass_fail, or 1–5 with the threshold from
// which an answer passes — and whether the judge sees the case's
// reference answer; [Load] reports every mistake as file:line: key: what
// is wrong, before any request. [Messages] writes the judge's prompt (the
// rubric, then the question, the reference and the answer between tags no
// answer can close) and [ReadPrompt] reads it back, so that the
// simulator's judge answers from what a judge is sent. [Rubric.Schema] is
// the verdict asked for ({score, pass, reason}), and [LoadLabels] reads
// answers labelled by people, checked against the scale. Package judge
// asks; this package imports nothing of llmsla but the leaves
// harness/escape and harness/internal/jsonl.
package rubric

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/escape"
)

// Scale is how a rubric scores an answer.
type Scale string

const (
	// PassFail scores 1 (pass) or 0 (fail).
	PassFail Scale = "pass_fail"
	// Five scores 1 to 5; an answer passes from the rubric's Threshold.
	Five Scale = "1-5"
)

// Scales lists the scales a rubric may name.
var Scales = []Scale{PassFail, Five}

// Rubric is what a judge is asked to hold an answer to.
type Rubric struct {
	Name     string
	Criteria []string // each a sentence a good answer meets
	Scale    Scale
	// Threshold is the lowest passing score of a 1–5 scale; 0 on pass_fail.
	Threshold float64
	// Reference shows the judge the case's reference answer.
	Reference bool

	File string // where it was read, "" for one built in code
	Line int
}

// Min and Max are the lowest and highest score of the rubric's scale.
func (r *Rubric) Min() float64 {
	if r.Scale == PassFail {
		return 0
	}
	return 1
}

// Max is the highest score of the rubric's scale.
func (r *Rubric) Max() float64 {
	if r.Scale == PassFail {
		return 1
	}
	return 5
}

// Passes says whether score passes: 1 on pass_fail, at least the
// threshold on 1–5.
func (r *Rubric) Passes(score float64) bool {
	if r.Scale == PassFail {
		return score == 1
	}
	return score >= r.Threshold
}

// Where names the rubric for messages: its file, or its name.
func (r *Rubric) Where() string {
	if r.File != "" {
		return r.File
	}
	return "rubric " + r.Name
}

// Digest is a hash of what the rubric asks (its name, criteria, scale,
// threshold and reference), part of every cache key: a rubric changed in
// any word is asked again.
func (r *Rubric) Digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %g %t", r.Name, r.Scale, r.Threshold, r.Reference)
	for _, c := range r.Criteria {
		fmt.Fprintf(h, " %q", c)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Error is one problem in a rubric file: "file:line: key: what".
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

var rubricKeys = []string{"name", "criteria", "scale", "threshold", "reference"}

// maxRubric bounds a rubric file: words for a prompt, not data.
const maxRubric = 64 << 10

// Load reads and checks a rubric file. Every problem is returned,
// joined, each a *Error naming its line and key and what is allowed.
func Load(path string) (*Rubric, error) {
	b, err := readBounded(path, maxRubric)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &rubricParser{file: path}
	r := &Rubric{File: path, Line: 1}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{path, 1, "criteria", "not a rubric: want a mapping with criteria, scale and (for 1-5) threshold"}
	}
	top := doc.Content[0]
	set := map[string]*yaml.Node{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if set[k.Value] != nil {
			p.fail(k, k.Value, "repeated key (first at line %d): write it once", set[k.Value].Line)
			continue
		}
		set[k.Value] = k
		p.key(r, k, v)
	}
	p.whole(r, top, set)
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return r, nil
}

type rubricParser struct {
	file string
	errs []error
}

func (p *rubricParser) fail(n *yaml.Node, key, format string, a ...any) {
	p.errs = append(p.errs, &Error{p.file, n.Line, key, fmt.Sprintf(format, a...)})
}

// key reads one key of a rubric.
func (p *rubricParser) key(r *Rubric, k, v *yaml.Node) {
	switch k.Value {
	case "name":
		r.Name = strings.TrimSpace(v.Value)
		if err := escape.CheckLine(r.Name); r.Name != "" && err != nil {
			p.fail(v, "name", "%v: it names every cache line and report row", err) // printed as it is
		}
	case "criteria":
		p.criteria(r, v)
	case "scale":
		r.Scale = Scale(strings.TrimSpace(v.Value))
		if !isScale(r.Scale) {
			p.fail(v, "scale", "%q is not a scale (allowed: %s)", v.Value, scaleNames())
		}
	case "threshold":
		t, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			p.fail(v, "threshold", "%q is not a number (e.g. threshold: 4)", v.Value)
			return
		}
		r.Threshold = t
	case "reference":
		b, err := strconv.ParseBool(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			p.fail(v, "reference", "%q: want true or false", v.Value)
		}
		r.Reference = b
	default:
		p.fail(k, k.Value, "unknown key (allowed: %s)", strings.Join(rubricKeys, ", "))
	}
}

// criteria reads criteria: one sentence or a list of them.
func (p *rubricParser) criteria(r *Rubric, v *yaml.Node) {
	switch v.Kind {
	case yaml.ScalarNode:
		if s := strings.TrimSpace(v.Value); s != "" {
			r.Criteria = append(r.Criteria, s)
		}
	case yaml.SequenceNode:
		for i, c := range v.Content {
			s := strings.TrimSpace(c.Value)
			switch {
			case c.Kind == yaml.MappingNode:
				p.fail(c, fmt.Sprintf("criteria[%d]", i), "a mapping, not a sentence: YAML reads \": \" as a key; quote the sentence")
				continue
			case c.Kind != yaml.ScalarNode || s == "":
				p.fail(c, fmt.Sprintf("criteria[%d]", i), "want a sentence saying what a good answer does")
				continue
			}
			r.Criteria = append(r.Criteria, s)
		}
	default:
		p.fail(v, "criteria", "want a sentence, or a list of them")
	}
}

// whole checks what the keys say together.
func (p *rubricParser) whole(r *Rubric, top *yaml.Node, set map[string]*yaml.Node) {
	at := func(key string) *yaml.Node {
		if n := set[key]; n != nil {
			return n
		}
		return top
	}
	if len(r.Criteria) == 0 && set["criteria"] == nil {
		p.fail(top, "criteria", "missing: a rubric says in words what a good answer is (criteria: [It is faithful to the source., …])")
	} else if len(r.Criteria) == 0 {
		p.fail(at("criteria"), "criteria", "empty: a rubric says in words what a good answer is")
	}
	if set["scale"] == nil {
		p.fail(top, "scale", "missing (allowed: %s)", scaleNames())
		return
	}
	if err := r.checkThreshold(set["threshold"] != nil); err != nil {
		p.fail(at("threshold"), "threshold", "%v", err)
	}
}

// checkThreshold: a 1–5 scale needs the score an answer passes from, and
// pass_fail has none.
func (r *Rubric) checkThreshold(written bool) error {
	switch {
	case r.Scale == Five && !written:
		return fmt.Errorf("missing: a 1-5 scale needs the lowest passing score (e.g. threshold: 4)")
	case r.Scale == Five && (r.Threshold < 1 || r.Threshold > 5):
		return fmt.Errorf("%v is outside the scale (allowed: 1 to 5)", r.Threshold)
	case r.Scale == PassFail && written:
		return fmt.Errorf("pass_fail has no threshold: a pass is a score of 1 (remove it, or use scale: 1-5)")
	}
	return nil
}

// Check reports a rubric built in code that LoadRubric would refuse.
func (r *Rubric) Check() error {
	switch {
	case len(r.Criteria) == 0:
		return fmt.Errorf("%s: no criteria", r.Where())
	case !isScale(r.Scale):
		return fmt.Errorf("%s: scale %q (allowed: %s)", r.Where(), r.Scale, scaleNames())
	}
	if err := r.checkThreshold(r.Threshold != 0); err != nil {
		return fmt.Errorf("%s: threshold: %w", r.Where(), err)
	}
	return nil
}

func isScale(s Scale) bool {
	for _, k := range Scales {
		if k == s {
			return true
		}
	}
	return false
}

func scaleNames() string {
	names := make([]string, len(Scales))
	for i, s := range Scales {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// readBounded reads a file of at most limit bytes: a larger one is refused
// rather than read whole.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes (allowed: at most %d)", path, st.Size(), limit)
	}
	b := make([]byte, st.Size())
	_, err = io.ReadFull(f, b)
	return b, err
}

// Files loads each rubric file once, as quality.Schemas compiles each
// schema once: every case and scenario naming a rubric shares it, and a
// rubric that does not load is reported once. The zero value is ready.
type Files struct {
	mu sync.Mutex
	m  map[string]loaded
}

type loaded struct {
	r   *Rubric
	err error
}

// Get returns the rubric at path, loading it on first use; seen says the
// path was asked before (its error, if any, already reported).
func (rs *Files) Get(path string) (r *Rubric, seen bool, err error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if l, ok := rs.m[path]; ok {
		return l.r, true, l.err
	}
	r, err = Load(path)
	if rs.m == nil {
		rs.m = map[string]loaded{}
	}
	rs.m[path] = loaded{r, err}
	return r, false, err
}
