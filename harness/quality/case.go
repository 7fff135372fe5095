package quality

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/internal/jsonl"
	"github.com/llmsla/llmsla/harness/internal/modroot"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Message is one chat message of a case.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Case is one fixture case: what to ask and how to judge the answer. The
// JSON form is one line of a fixture file (fixtures/README.md).
type Case struct {
	ID       string            `json:"id"`
	Messages []Message         `json:"messages,omitempty"`
	Prompt   string            `json:"prompt,omitempty"` // template with {{var}}
	Vars     map[string]string `json:"vars,omitempty"`
	Expected json.RawMessage   `json:"expected,omitempty"`
	Match    MatchSpec         `json:"match"`
	Schema   string            `json:"schema,omitempty"` // relative to the repo root
	Tags     []string          `json:"tags,omitempty"`
	// Answer passes every check of the case and WrongAnswer fails the
	// matcher while passing the schema: the simulator serves them, and
	// LoadCases proves that the checks tell them apart.
	Answer      string `json:"answer"`
	WrongAnswer string `json:"wrong_answer"`
	// A conversation instead of messages or prompt (conversation.go):
	// Turns are its user messages, one a turn; History is live (the
	// model's own replies go between them, the default) or recorded
	// (Assistant's, one before each turn after the first); Think is the
	// pause before each turn after the first. The checks judge the last
	// turn's answer.
	Turns     []string `json:"turns,omitempty"`
	History   string   `json:"history,omitempty"`
	Assistant []string `json:"assistant,omitempty"`
	Think     *Think   `json:"think,omitempty"`

	// Filled by LoadCases.
	File           string             `json:"-"`
	Line           int                `json:"-"`
	SchemaFile     string             `json:"-"` // Schema resolved to a file path
	CompiledSchema *jsonschema.Schema `json:"-"`
	matcher        Matcher

	// A tool case's (tools.go), filled by LoadCases: the functions it
	// offers, its tool_choice as written, the call it expects, the
	// reference calls (one per agent step: the simulator makes them),
	// and for an agent loop the result sent back for each tool and the
	// most model calls the loop may make.
	Tools       []Tool                     `json:"-"`
	ToolChoice  json.RawMessage            `json:"tool_choice,omitempty"`
	ExpectTool  *ExpectTool                `json:"-"`
	AnswerCalls []Call                     `json:"-"`
	ToolResults map[string]json.RawMessage `json:"tool_results,omitempty"`
	MaxSteps    int                        `json:"max_steps,omitempty"`
	toolIn      toolInput
}

// Matcher returns the case's matcher: the one LoadCases built, or a new one
// for a case built in code.
func (c *Case) Matcher() (Matcher, error) {
	if c.matcher != nil {
		return c.matcher, nil
	}
	return NewMatcher(c.Match, c.Expected)
}

// NeedsJSON reports whether the answer must be JSON: the case has a schema
// or compares JSON.
func (c *Case) NeedsJSON() bool {
	return c.Schema != "" || c.CompiledSchema != nil || jsonMatchers[c.Match.Type]
}

// ExpectedText is the expected answer as a report shows it.
func (c *Case) ExpectedText() string {
	if len(c.Expected) > 0 {
		var s string
		if json.Unmarshal(c.Expected, &s) == nil {
			return s
		}
		if b, err := Canonical(c.Expected); err == nil {
			return string(b)
		}
		return string(c.Expected)
	}
	var pat string
	if raw, ok := c.Match.Options["pattern"]; ok && json.Unmarshal(raw, &pat) == nil {
		return "/" + pat + "/"
	}
	return describeMatch(c.Match)
}

// describeMatch says what a matcher without an expected value wants, as a
// person reads it: "constraint: keywords council, garage|parking;
// max_words 45; min_words 15" rather than its JSON.
func describeMatch(m MatchSpec) string {
	keys := make([]string, 0, len(m.Options))
	for k := range m.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		var list []any
		var one any
		switch {
		case json.Unmarshal(m.Options[k], &list) == nil:
			vals := make([]string, len(list))
			for i, v := range list {
				vals[i] = fmt.Sprint(v)
			}
			parts = append(parts, k+" "+strings.Join(vals, ", "))
		case json.Unmarshal(m.Options[k], &one) == nil:
			parts = append(parts, fmt.Sprintf("%s %v", k, one))
		default:
			parts = append(parts, k+" "+string(m.Options[k]))
		}
	}
	if len(parts) == 0 {
		return m.Type
	}
	return m.Type + ": " + strings.Join(parts, "; ")
}

var varRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// Render returns the messages to send: Messages as given, or Prompt with its
// variables filled in as a single user message.
func (c *Case) Render() []Message {
	if c.Prompt == "" {
		return c.Messages
	}
	text := varRE.ReplaceAllStringFunc(c.Prompt, func(m string) string {
		return c.Vars[varRE.FindStringSubmatch(m)[1]]
	})
	return []Message{{Role: "user", Content: text}}
}

// MaxFixture bounds a fixture file: it is read whole, before any request.
const MaxFixture = 64 << 20

// CaseError is one problem in a fixture file, reported as
// "file:line: key: what is wrong".
type CaseError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *CaseError) Error() string { return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg) }

var caseKeys = append(append([]string{"id", "messages", "prompt", "vars", "expected", "match", "schema", "tags", "answer", "wrong_answer"}, toolKeys...), conversationKeys...)

var roles = []string{"system", "user", "assistant"}

// loadSchemas caches compiled schemas for the life of the process: every
// fixture file of a run shares one compiled invoice schema.
var loadSchemas Schemas

// LoadCases reads a JSONL fixture file and validates every case before any
// request is sent. All problems are returned, joined, each a *CaseError;
// the cases are returned only when there are none. A case's schema path is
// relative to the repository root: the nearest directory above the file
// holding go.mod, or the file's own directory when there is none.
func LoadCases(path string) ([]Case, error) {
	data, err := readBounded(path, MaxFixture)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a fixture is read whole)", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // an editor's byte-order mark
	root := repoRoot(path)
	var cases []Case
	var errs []error
	firstLine := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		fail := func(key, format string, a ...any) {
			errs = append(errs, &CaseError{path, i + 1, key, fmt.Sprintf(format, a...)})
		}
		c, ok := parseCase(line, fail)
		if !ok {
			continue
		}
		c.File, c.Line = path, i+1
		if c.ID != "" {
			checkID(c.ID, fail)
			if first, dup := firstLine[c.ID]; dup {
				fail("id", "duplicate %q (first on line %d)", c.ID, first)
			} else {
				firstLine[c.ID] = i + 1
			}
		}
		validateCase(&c, root, fail)
		cases = append(cases, c)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(cases) == 0 {
		return nil, &CaseError{path, 1, "id", "no cases in file"}
	}
	return cases, nil
}

// parseCase decodes one line key by key, so that an unknown or mistyped key
// is named rather than dropped or reported by byte offset.
func parseCase(line []byte, fail func(key, format string, a ...any)) (Case, bool) {
	var c Case
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		fail("json", "not a JSON object: %v", err)
		return c, false
	}
	if k := jsonl.RepeatedKey(line); k != "" {
		fail(escape.Text(k), "given twice: which one is meant is not known")
		return c, false
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ok := true
	for _, k := range keys {
		v := raw[k]
		var dst any
		want := "a string"
		switch k {
		case "id":
			dst = &c.ID
		case "messages":
			dst, want = &c.Messages, `an array of {"role", "content"}`
		case "prompt":
			dst = &c.Prompt
		case "vars":
			dst, want = &c.Vars, "an object of strings"
		case "expected":
			c.Expected = v
			continue
		case "match":
			dst, want = &c.Match, `an object like {"type": "normalized"}`
		case "schema":
			dst = &c.Schema
		case "tags":
			dst, want = &c.Tags, "an array of strings"
		case "answer":
			dst = &c.Answer
		case "wrong_answer":
			dst = &c.WrongAnswer
		default:
			if c.toolKey(k, v) {
				continue // validateTools reads it
			}
			if known, good := parseConversationKey(&c, k, v, fail); known {
				ok = ok && good
				continue
			}
			fail(k, "unknown key (allowed: %s)", strings.Join(caseKeys, ", "))
			ok = false
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			var se *SpecError
			if errors.As(err, &se) {
				fail("match."+se.Key, "%s", se.Msg)
			} else {
				fail(k, "want %s", want)
			}
			ok = false
		}
	}
	return c, ok
}

// checkID: a case id is printed (go test -v, the verdict's failing cases)
// and becomes a golden file's name, so it is one element of a path as it
// is, and never a secret: a key pasted as an id would be written out.
func checkID(id string, fail func(key, format string, a ...any)) {
	if err := escape.CheckFileName(id); err != nil {
		fail("id", "%v", err)
		return
	}
	if name, found := findSecret([]byte(id), envSecrets()); found {
		fail("id", "holds the value of $%s: a case id is printed and becomes a golden file's name (allowed: any other id)", name)
	}
}

// CheckIDs refuses the cases whose id holds one of sec's secrets (the
// configuration's: LoadCases knows the environment's only), each a
// *CaseError at its line, joined.
func CheckIDs(cases []Case, sec *secret.Set) error {
	var errs []error
	for _, c := range cases {
		if sec.Contains([]byte(c.ID)) {
			errs = append(errs, &CaseError{c.File, c.Line, "id", "holds a secret of the configuration: a case id is printed and becomes a golden file's name (allowed: any other id)"})
		}
	}
	return errors.Join(errs...)
}

func validateCase(c *Case, root string, fail func(key, format string, a ...any)) {
	if strings.TrimSpace(c.ID) == "" {
		fail("id", "missing")
	}
	validateConversation(c, fail)
	if c.IsConversation() {
		if len(c.toolIn.tools) > 0 {
			fail("tools", "given on a conversation (allowed: turns or tools, not both: a conversation's turns are text)")
		}
	} else {
		validateInput(c, fail)
		if validateTools(c, root, fail) && !c.IsLoop() {
			refuseText(c, fail) // judged by its call alone
			return
		}
	}
	m, err := NewMatcher(c.Match, c.Expected)
	if err != nil {
		var se *SpecError
		if errors.As(err, &se) {
			fail(se.Key, "%s", se.Msg)
		} else {
			fail("match", "%v", err)
		}
	}
	c.matcher = m
	schemaOK := true
	if c.Schema != "" {
		c.SchemaFile = filepath.Join(root, filepath.FromSlash(c.Schema))
		if _, err := os.Stat(c.SchemaFile); err != nil {
			fail("schema", "file not found: %s (paths are relative to the repo root %s)", c.Schema, root)
			schemaOK = false
		} else if s, err := loadSchemas.Get(c.SchemaFile); err != nil {
			fail("schema", "does not compile: %v", err)
			schemaOK = false
		} else {
			c.CompiledSchema = s
		}
	}
	if c.Answer == "" {
		fail("answer", "missing (the simulator serves it, and it proves the checks can pass)")
	}
	if c.WrongAnswer == "" {
		fail("wrong_answer", "missing (the simulator serves it, and it proves the checks can fail)")
	}
	if m == nil || !schemaOK {
		return // the answers cannot be judged without their checks
	}
	chk := NewCheck(c)
	if c.Answer != "" {
		if r := chk.Run(c.Answer, "stop"); !r.Pass() {
			fail("answer", "fails its own checks: %s", join(r.Detail, r.SchemaError))
		}
	}
	if c.WrongAnswer != "" {
		r := chk.Run(c.WrongAnswer, "stop")
		if r.Matched {
			fail("wrong_answer", "passes the matcher; it must fail it")
		}
		if r.SchemaChecked && !r.SchemaValid {
			fail("wrong_answer", "fails the schema (%s); it must pass the schema and fail only the matcher", r.SchemaError)
		}
	}
}

func validateInput(c *Case, fail func(key, format string, a ...any)) {
	switch {
	case len(c.Messages) > 0 && c.Prompt != "":
		fail("prompt", "give either messages or prompt, not both")
	case len(c.Messages) == 0 && c.Prompt == "":
		fail("messages", "missing (give messages, or prompt with vars)")
	}
	for i, m := range c.Messages {
		if !contains(roles, m.Role) {
			fail(fmt.Sprintf("messages[%d].role", i), "unknown %q (allowed: %s)", m.Role, strings.Join(roles, ", "))
		}
		if strings.TrimSpace(m.Content) == "" {
			fail(fmt.Sprintf("messages[%d].content", i), "empty")
		}
	}
	if c.Prompt == "" {
		if len(c.Vars) > 0 {
			fail("vars", "given without a prompt template")
		}
		return
	}
	used := map[string]bool{}
	for _, m := range varRE.FindAllStringSubmatch(c.Prompt, -1) {
		name := m[1]
		if _, ok := c.Vars[name]; !ok && !used[name] {
			fail("vars", "missing %q, used by prompt as {{%s}} (have: %s)", name, name, strings.Join(sortedKeys(c.Vars), ", "))
		}
		used[name] = true
	}
	for _, k := range sortedKeys(c.Vars) {
		if !used[k] {
			fail("vars."+k, "not used by prompt (a typo in the template?)")
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// repoRoot finds the directory schema paths are relative to: the module
// root, or the file's own directory outside a module.
func repoRoot(file string) string {
	if root, err := modroot.Find(filepath.Dir(file)); err == nil {
		return root
	}
	return filepath.Dir(file)
}
