package quality

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckStrictVsLenient(t *testing.T) {
	s, err := CompileSchema(invoiceSchema)
	if err != nil {
		t.Fatal(err)
	}
	c := &Case{ID: "inv", Expected: json.RawMessage(`3`), Match: MatchSpec{Type: "json_path", Options: map[string]json.RawMessage{"path": json.RawMessage(`"$.total"`)}}}
	doc := `{"vendor":"Acme","invoice_number":"A-1","date":"2024-03-01","currency":"USD","items":[{"description":"Bolt","quantity":2,"unit_price":1.5}],"total":3}`
	fencedDoc := "Here you go:\n```json\n" + doc + "\n```"

	strict := (&Check{Case: c, Schema: s}).Run(fencedDoc, "stop")
	if !strict.JSONChecked || strict.JSONValid || strict.Pass() || !strict.SchemaChecked || strict.SchemaValid {
		t.Errorf("strict on a fenced body: %+v", strict)
	}
	lenient := (&Check{Case: c, Schema: s, Lenient: true}).Run(fencedDoc, "stop")
	// The schema and the matcher read the fenced JSON; the answer still
	// fails, as json valid % (strict) counts it.
	if !lenient.JSONValid || !lenient.JSONLenient || !lenient.SchemaValid || !lenient.Matched || lenient.Pass() || lenient.Detail == "" {
		t.Errorf("lenient on a fenced body: %+v", lenient)
	}
	plain := (&Check{Case: c, Schema: s, Lenient: true}).Run(doc, "stop")
	if plain.JSONLenient || !plain.Pass() {
		t.Errorf("lenient on a plain body marked lenient: %+v", plain)
	}
}

func TestCheckRun(t *testing.T) {
	c := &Case{ID: "c1", Expected: json.RawMessage(`"negative"`), Match: MatchSpec{Type: "normalized"}}
	chk := &Check{Case: c}
	r := chk.Run(strings.Repeat("I think it is probably positive overall ", 5), "length")
	if r.JSONChecked || r.SchemaChecked || !r.MatchChecked || r.Matched || !r.Truncated || r.Case != "c1" {
		t.Errorf("Run = %+v", r)
	}
	if n := len([]rune(r.Got)); n > displayMax+1 {
		t.Errorf("Got is %d runes, want ≤ %d", n, displayMax+1)
	}
	if r.Detail == "" || r.Expected != "negative" {
		t.Errorf("Detail %q, Expected %q", r.Detail, r.Expected)
	}
	// A bad hand-built spec is reported, not a panic, and not counted as a
	// match check.
	bad := (&Check{Case: &Case{ID: "x", Match: MatchSpec{Type: "nope"}}}).Run("a", "stop")
	if bad.MatchChecked || !strings.Contains(bad.Detail, "match.type") {
		t.Errorf("bad spec: %+v", bad)
	}
}

func TestTally(t *testing.T) {
	var a, b sample.Tally
	a.Add(sample.Quality{Case: "1", MatchChecked: true, Matched: true})
	a.Add(sample.Quality{Case: "2", MatchChecked: true, Expected: "x", Got: "y"})
	a.Add(sample.Quality{Case: "3", JSONChecked: true, JSONValid: true, JSONLenient: true, MatchChecked: true, Matched: true})
	b.Add(sample.Quality{Case: "4", JSONChecked: true, JSONValid: true, SchemaChecked: true, SchemaError: "/total: minimum"})
	b.Add(sample.Quality{Case: "5", JSONChecked: true, SchemaChecked: true, Truncated: true})
	a.Merge(b)
	if a.Responses != 5 || a.Passed != 1 || a.Truncated != 1 {
		t.Errorf("counts: %+v", a)
	}
	for name, tc := range map[string]struct{ got, want float64 }{
		"json strict":  {a.JSONValidRate(), 1.0 / 3},
		"json lenient": {a.JSONLenientRate(), 1.0 / 3},
		"schema":       {a.SchemaValidRate(), 0},
		"accuracy":     {a.AccuracyRate(), 2.0 / 3},
		"pass":         {a.PassRate(), 1.0 / 5}, // the lenient JSON pass is no pass
	} {
		if fmt.Sprintf("%.4f", tc.got) != fmt.Sprintf("%.4f", tc.want) {
			t.Errorf("%s rate = %v, want %v", name, tc.got, tc.want)
		}
	}
	var empty sample.Tally
	if r := empty.AccuracyRate(); r == r {
		t.Errorf("accuracy of nothing = %v, want NaN", r)
	}
}

func ExampleCheck_Run() {
	c := &Case{
		ID:       "sentiment-1",
		Expected: json.RawMessage(`"positive"`),
		Match:    MatchSpec{Type: "normalized"},
	}
	chk := &Check{Case: c}
	for _, answer := range []string{"Positive.", "negative"} {
		r := chk.Run(answer, "stop")
		fmt.Printf("%q pass=%v expected=%q got=%q detail=%q\n", answer, r.Pass(), r.Expected, r.Got, r.Detail)
	}
	// Output:
	// "Positive." pass=true expected="positive" got="Positive." detail=""
	// "negative" pass=false expected="positive" got="negative" detail="want \"positive\" ignoring case and spacing"
}
