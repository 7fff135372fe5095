package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Names and messages an endpoint or a file may hold, each an attack on
// where the report prints it.
const (
	forgedRow  = "m\n| **forged** | row |\nBenchmarkFake-2 1 1 ttft-p95-ms"
	markupName = `<img src=x onerror=alert(1)>![](https://evil/p.png)[link](https://evil)`
	termName   = "\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\rok\u202e"
	formula    = `=HYPERLINK("https://evil","x")`
)

func hostileBoard(t *testing.T) *Board {
	t.Helper()
	var ss []sample.Sample
	for i, name := range []string{termName, formula} {
		for _, s := range samples(10, endpoint{name: "ep" + string(rune('a'+i)), ttft: 20e6, price: usd(1, 1)}) {
			s.Endpoint, s.Model = name, []string{forgedRow, markupName}[i]
			ss = append(ss, s)
		}
	}
	return NewBoard(ss, Options{Prices: map[string]Price{termName: usd(1, 1), formula: usd(1, 1)}})
}

// TestBoardEscapesNames: an endpoint or model name that holds terminal
// escapes, markdown, a forged row or a formula comes out neutralised in
// every format: no control character on a terminal, no tag, link, image
// or extra row in markdown, no formula in CSV, JSON that decodes to the
// names and holds no raw control character.
func TestBoardEscapesNames(t *testing.T) {
	b := hostileBoard(t)
	var text, md, js, cs bytes.Buffer
	b.Text(&text, false)
	b.Markdown(&md)
	require.NoError(t, b.JSON(&js))
	require.NoError(t, b.CSV(&cs))

	for _, line := range strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n") {
		require.NoError(t, escape.CheckLine(strings.ReplaceAll(line, "\t", " ")+"."), "text line %q", line)
	}
	assert.NotContains(t, text.String(), "\nBenchmarkFake")

	rows := 0
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "|") {
			rows++
		}
		// Each would act unless a backslash stands before it.
		assert.NotRegexp(t, `(^|[^\\])(<img|!\[|\]\(|://)`, line)
		assert.False(t, strings.HasPrefix(line, "BenchmarkFake"), line)
	}
	_, table, _ := b.Table(false)
	assert.Equal(t, len(table)+2, rows, "one markdown row per board row, and the head and its rule: none forged\n%s", md.String())

	var back boardJSON
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	assert.ElementsMatch(t, []string{termName, formula}, []string{back.Endpoints[0].Name, back.Endpoints[1].Name}, "JSON keeps the names as they are")
	assert.NoError(t, escape.CheckLine(strings.ReplaceAll(js.String(), "\n", " ")), "raw control characters in the JSON")

	recs, err := csv.NewReader(&cs).ReadAll()
	require.NoError(t, err)
	for _, rec := range recs[1:] {
		for _, cell := range rec[:3] {
			assert.NotContains(t, "=+-@", cell[:1], "cell %q starts a formula", cell)
			assert.NoError(t, escape.CheckLine(cell))
		}
	}
}

// TestVerdictsEscape: what an endpoint sent (an error message, a failing
// case's detail) and the names of a run print on a terminal neutralised,
// on the line they belong to.
func TestVerdictsEscape(t *testing.T) {
	st := stats.Summarize(nil, nil)
	st.Scenario, st.Endpoint = "chat", termName
	st.Cold = &sample.Sample{ErrKind: sample.KindServerError, Err: "server_error (HTTP 500): " + termName + "\nAll SLAs met."}
	st.Colds = []*sample.Sample{st.Cold}
	st.Warnings = []string{"warned\x1b[2J\nforged"}
	v := objective.Verdict{Scenario: "chat", Endpoint: termName, Level: "concurrency=1", Stats: st}
	var out bytes.Buffer
	Verdicts(&out, []objective.Verdict{v})
	out.WriteString(Line(st))
	for _, line := range strings.Split(out.String(), "\n") {
		assert.NoError(t, escape.CheckLine(line+"."), "line %q", line)
		assert.NotEqual(t, "All SLAs met.", strings.TrimSpace(line), "a forged line")
		assert.NotEqual(t, "forged", strings.TrimSpace(line), "a forged line")
	}
	assert.Contains(t, out.String(), `server_error (HTTP 500): \x1b]0;pwned\a`)
}

// TestCostOverflowIsNotMeasured: a price so high that the cost overflows
// (1e308 per Mtok) is not a figure: the JSON encodes (no +Inf), and the
// cost says why it is missing.
func TestCostOverflowIsNotMeasured(t *testing.T) {
	huge := usd(1e308, 1e308)
	for name, p := range map[string]Price{"per token": huge, "per hour": {PerHour: 1e308, Hourly: true, Currency: "USD"}} {
		t.Run(name, func(t *testing.T) {
			ss := samples(10, endpoint{name: "a", ttft: 20e6})
			b := NewBoard(ss, Options{Prices: map[string]Price{"a": p}})
			var js bytes.Buffer
			require.NoError(t, b.JSON(&js))
			assert.Contains(t, js.String(), `"cost_per_1k": null`)
			assert.Contains(t, js.String(), "not measured: the price overflows")
			assert.False(t, b.Endpoints[0].Overall.Cost.Measured())
			assert.False(t, math.IsInf(b.Endpoints[0].Overall.Cost.PerK, 0))
		})
	}
}
