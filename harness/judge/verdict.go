package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/internal/jsonl"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Why a judgment failed, as counted: every failure wraps one of them.
var (
	ErrRequest       = errors.New("judge request failed")    // the request's error kind follows
	ErrTimeout       = errors.New("judge request timed out") // a timeout of the judge endpoint
	ErrCut           = errors.New("judge answer cut")        // by max_tokens, or at the capture limit
	ErrNotJSON       = errors.New("judge answer not JSON")
	ErrSchema        = errors.New("judge answer breaks the verdict schema")
	ErrContradictory = errors.New("judge answer contradicts itself")
	ErrUnjudgeable   = errors.New("answer not judged") // too long to show, or cut at the capture limit
)

// Failures are the kinds of failure, in the order reports list them.
var Failures = []error{ErrRequest, ErrTimeout, ErrCut, ErrNotJSON, ErrSchema, ErrContradictory, ErrUnjudgeable}

// FailureKind names the kind of a failed judgment: "not JSON", "timed out".
func FailureKind(err error) string {
	for _, f := range Failures {
		if errors.Is(err, f) {
			return strings.TrimPrefix(strings.TrimPrefix(f.Error(), "judge "), "answer ")
		}
	}
	return "other"
}

// verdictSchemas holds the compiled verdict schema of each scale (the
// schema depends on nothing else), compiled once.
var verdictSchemas sync.Map // Scale → *jsonschema.Schema

// compiled is r's verdict schema, compiled.
func compiled(r *rubric.Rubric) (*jsonschema.Schema, error) {
	if s, ok := verdictSchemas.Load(r.Scale); ok {
		return s.(*jsonschema.Schema), nil
	}
	s, err := quality.CompileSchemaJSON("mem:///verdict-"+string(r.Scale)+".json", r.Schema())
	if err != nil {
		return nil, err
	}
	verdictSchemas.Store(r.Scale, s)
	return s, nil
}

// Parse reads a judge's answer as a verdict under r: the whole answer one
// JSON object (no fence, no prose around it), valid against r.Schema, and
// its pass what its score says on the rubric's scale. Anything else is an
// error wrapping ErrNotJSON, ErrSchema or ErrContradictory, which says
// what the judge answered.
func Parse(r *rubric.Rubric, content string) (rubric.Verdict, error) {
	var v rubric.Verdict
	doc, _, _, err := quality.ParseJSON(content, false)
	if err != nil {
		return v, fmt.Errorf("%w: %v (it answered %s)", ErrNotJSON, err, quote(content))
	}
	if k := jsonl.RepeatedKey([]byte(content)); k != "" {
		return v, fmt.Errorf("%w: %s given twice (it answered %s)", ErrSchema, escape.Text(k), quote(content))
	}
	s, err := compiled(r)
	if err != nil {
		return v, err
	}
	if e := quality.ValidateSchema(s, doc); e != "" {
		return v, fmt.Errorf("%w: %s (it answered %s)", ErrSchema, e, quote(content))
	}
	b, _ := json.Marshal(doc)
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if v.Pass != r.Passes(v.Score) {
		return v, fmt.Errorf("%w: pass %t with a score of %s, which on %s %s", ErrContradictory, v.Pass,
			strconv.FormatFloat(v.Score, 'g', -1, 64), r.Scale, scaleSays(r, v.Score))
	}
	return v, nil
}

// scaleSays is what a score means on the rubric's scale, in words.
func scaleSays(r *rubric.Rubric, score float64) string {
	verdict := "fails"
	if r.Passes(score) {
		verdict = "passes"
	}
	if r.Scale == rubric.Five {
		return fmt.Sprintf("%s (threshold %s)", verdict, strconv.FormatFloat(r.Threshold, 'g', -1, 64))
	}
	return verdict
}

// quote shows a judge's answer in an error: quoted, on one line, cut.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strconv.Quote(s)
}
