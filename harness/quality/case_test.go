package quality

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const goodLine = `{"id":"s1","prompt":"Sentiment of: {{text}}","vars":{"text":"I love it"},"expected":"positive","match":{"type":"normalized"},"tags":["sentiment"],"answer":"positive","wrong_answer":"negative"}`

func TestLoadCasesGood(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/x\n") // marks the root schema paths start from
	writeFile(t, dir, "fixtures/schemas/s.json", `{"type":"object","required":["total"],"properties":{"total":{"type":"number","minimum":0}}}`)
	p := writeFile(t, dir, "fixtures/cases.jsonl", goodLine+"\n\n"+
		`{"id":"j1","messages":[{"role":"system","content":"Reply in JSON."},{"role":"user","content":"Total of 2+3?"}],"expected":5,"match":{"type":"json_path","path":"$.total"},"schema":"fixtures/schemas/s.json","answer":"{\"total\":5}","wrong_answer":"{\"total\":6}"}`+"\n")
	cases, err := LoadCases(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[1].Line != 3 || cases[1].CompiledSchema == nil || !cases[1].NeedsJSON() || cases[0].NeedsJSON() {
		t.Fatalf("cases = %+v", cases)
	}
	if got := cases[0].Render(); len(got) != 1 || got[0].Content != "Sentiment of: I love it" || got[0].Role != "user" {
		t.Errorf("Render = %+v", got)
	}
	if r := NewCheck(&cases[1]).Run(`{"total": -1}`, "stop"); r.SchemaValid || !strings.Contains(r.SchemaError, "/total: minimum") {
		t.Errorf("Run = %+v", r)
	}
}

func TestLoadCasesErrors(t *testing.T) {
	line := func(old, new string) string {
		if !strings.Contains(goodLine, old) {
			panic(old)
		}
		return strings.Replace(goodLine, old, new, 1)
	}
	cases := map[string]struct {
		lines []string
		want  []string // each must appear in the joined error
	}{
		"unknown key": {[]string{line(`"tags"`, `"labels"`)},
			[]string{"cases.jsonl:1: labels: unknown key (allowed: id, messages, prompt"}},
		"missing id": {[]string{line(`"id":"s1",`, ``)}, []string{":1: id: missing"}},
		"duplicate id": {[]string{goodLine, goodLine},
			[]string{`:2: id: duplicate "s1" (first on line 1)`}},
		"bad matcher": {[]string{line(`"normalized"`, `"fuzzy"`)},
			[]string{`:1: match.type: unknown matcher "fuzzy" (allowed: constraint, contains, embedding_rank, exact, json_equal, json_path, judge, normalized, number, one_of, regex, subset)`}},
		"bad option": {[]string{line(`{"type":"normalized"}`, `{"type":"normalized","fold":1}`)},
			[]string{":1: match.fold: unknown option for normalized (allowed: none)"}},
		"bad regex": {[]string{line(`{"type":"normalized"}`, `{"type":"regex","pattern":"(pos"}`)},
			[]string{":1: match.pattern: bad regex"}},
		"template var missing": {[]string{line(`{{text}}`, `{{text}} in {{lang}}`)},
			[]string{`:1: vars: missing "lang", used by prompt as {{lang}} (have: text)`}},
		"var unused": {[]string{line(`"vars":{"text":"I love it"}`, `"vars":{"text":"I love it","txet":"x"}`)},
			[]string{":1: vars.txet: not used by prompt"}},
		"no input": {[]string{line(`"prompt":"Sentiment of: {{text}}","vars":{"text":"I love it"},`, ``)},
			[]string{":1: messages: missing"}},
		"bad role": {[]string{line(`"prompt":"Sentiment of: {{text}}","vars":{"text":"I love it"}`, `"messages":[{"role":"bot","content":"hi"}]`)},
			[]string{`:1: messages[0].role: unknown "bot" (allowed: system, user, assistant)`}},
		"schema missing": {[]string{line(`"tags"`, `"schema":"fixtures/schemas/nope.json","tags"`)},
			[]string{":1: schema: file not found: fixtures/schemas/nope.json"}},
		"schema uncompilable": {[]string{line(`"tags"`, `"schema":"bad.json","tags"`)},
			[]string{":1: schema: does not compile"}},
		"answer fails": {[]string{line(`"answer":"positive"`, `"answer":"neutral"`)},
			[]string{":1: answer: fails its own checks"}},
		"wrong answer passes": {[]string{line(`"wrong_answer":"negative"`, `"wrong_answer":"Positive."`)},
			[]string{":1: wrong_answer: passes the matcher"}},
		"wrong answer fails schema": {[]string{`{"id":"j","prompt":"x","expected":5,"match":{"type":"json_path","path":"$.total"},"schema":"s.json","answer":"{\"total\":5}","wrong_answer":"{\"total\":-5}"}`},
			[]string{":1: wrong_answer: fails the schema (/total: minimum"}},
		"answers missing": {[]string{line(`,"answer":"positive","wrong_answer":"negative"`, ``)},
			[]string{":1: answer: missing", ":1: wrong_answer: missing"}},
		"wrong type": {[]string{line(`"tags":["sentiment"]`, `"tags":"sentiment"`)},
			[]string{":1: tags: want an array of strings"}},
		"not json":     {[]string{`{"id":`}, []string{":1: json: not a JSON object"}},
		"all reported": {[]string{line(`"tags"`, `"labels"`), goodLine, line(`"normalized"`, `"fuzzy"`)}, []string{":1: labels:", ":3: match.type:"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "s.json", `{"type":"object","properties":{"total":{"type":"number","minimum":0}}}`)
			writeFile(t, dir, "bad.json", `{"type":"nope"}`)
			p := writeFile(t, dir, "cases.jsonl", strings.Join(tc.lines, "\n")+"\n")
			cs, err := LoadCases(p)
			if err == nil {
				t.Fatalf("LoadCases succeeded with %d cases", len(cs))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain %q", err, w)
				}
			}
			var ce *CaseError
			if !errors.As(err, &ce) || ce.File != p {
				t.Errorf("error %v is not a *CaseError naming %s", err, p)
			}
			for _, l := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(l, p+":") {
					t.Errorf("error line %q does not start with file:line", l)
				}
			}
		})
	}
}

func ExampleLoadCases() {
	_, err := LoadCases("testdata/bad.jsonl")
	fmt.Println(err)
	// Output:
	// testdata/bad.jsonl:1: colour: unknown key (allowed: id, messages, prompt, vars, expected, match, schema, tags, answer, wrong_answer, tools, tool_choice, expect_tool, answer_calls, tool_results, max_steps, turns, history, assistant, think)
	// testdata/bad.jsonl:2: match.type: unknown matcher "fuzzy" (allowed: constraint, contains, embedding_rank, exact, json_equal, json_path, judge, normalized, number, one_of, regex, subset)
}
