package escape_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/escape"
)

// attacks are texts an endpoint or a file may send, each with what a
// terminal would do with it raw.
var attacks = map[string]string{
	"window title (OSC 0)":    "\x1b]0;pwned\x07",
	"clipboard (OSC 52)":      "\x1b]52;c;cm0gLXJmIH4K\x07",
	"clear screen (CSI)":      "\x1b[2J\x1b[H",
	"8-bit CSI":               "\u009b2J",
	"carriage return":         "FAIL\rok  ",
	"bell":                    "\a",
	"forged line":             "x\nAll SLAs met.",
	"bidi override":           "\u202eko",
	"line separator":          "a\u2028b",
	"not UTF-8":               "\xff\xfe",
	"DEL":                     "\x7f",
	"tab (a forged column)":   "a\tb",
	"backspace over the text": "FAIL\b\b\b\bok",
}

// TestTextNeutralises: no control character, separator, bidi control or
// invalid byte survives Text, and what is shown says what was there.
func TestTextNeutralises(t *testing.T) {
	for name, in := range attacks {
		t.Run(name, func(t *testing.T) {
			got := escape.Text("id " + in + " end")
			assert.NoError(t, escape.CheckLine(got), "Text left %q", got)
			assert.True(t, strings.HasPrefix(got, "id ") && strings.HasSuffix(got, " end"), got)
		})
	}
	assert.Equal(t, `a\nb\r\t\x1b[2J\u009b\u202e\xff`, escape.Text("a\nb\r\t\x1b[2J\u009b\u202e\xff"))
	for _, ok := range []string{"plain", "gpt-4o/mini", `C:\path`, "héllo wörld 日本", "emoji 👍🏽", ""} {
		assert.Equal(t, ok, escape.Text(ok), "printable text is kept")
	}
	again := escape.Text(attacks["clipboard (OSC 52)"])
	assert.Equal(t, again, escape.Text(again), "Text of Text changes nothing")
}

// TestMarkdownNeutralises: a cell holding tags, links, images, autolinks,
// a newline or a "|" renders as its text: every syntax character is
// escaped, so a renderer sees none.
func TestMarkdownNeutralises(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"image":        {"![x](https://evil/p.png)", `!\[x\](https\://evil/p.png)`},
		"link":         {"[click](javascript:alert(1))", `\[click\](javascript:alert(1))`},
		"html tag":     {`<img src=x onerror=alert(1)>`, `\<img src=x onerror=alert(1)>`},
		"anchor":       {`<a href="https://evil">ok</a>`, `\<a href="https\://evil">ok\</a>`},
		"autolink url": {"see https://evil.example", `see https\://evil.example`},
		"autolink www": {"www.evil.example", `www\.evil.example`},
		"e-mail":       {"a@evil.example", `a\@evil.example`},
		"forged row":   {"m\n | BenchmarkFake | 1 |", `m\\n \| BenchmarkFake \| 1 \|`},
		"pipe":         {"a|b", `a\|b`},
		"emphasis":     {"**bold** _it_ ~~s~~", `\*\*bold\*\* \_it\_ \~\~s\~\~`},
		"code span":    {"`x`", "\\`x\\`"},
		"entity":       {"&lt;script&gt;", `\&lt;script\&gt;`},
		"list start":   {"- item", `\- item`},
		"ordered list": {"12. item", `12\. item`},
		"heading":      {"# big", `\# big`},
		"math":         {"$x$", `\$x\$`},
		"terminal":     {"\x1b]0;t\x07", `\\x1b\]0;t\\a`},
		"plain":        {"gpt-4o-mini 12.5 ms", "gpt-4o-mini 12.5 ms"},
		"comparison":   {"accuracy 60% < 90% & 1.5 > 1", "accuracy 60% < 90% & 1.5 > 1"},
		"html comment": {"<!-- x", `\<!-- x`},
		"quote":        {"> quoted", `\> quoted`},
		"a number":     {"22.8 ms", "22.8 ms"},
		"underscore":   {"prompt_tokens=1024", `prompt\_tokens=1024`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, escape.Markdown(tc.in))
		})
	}
}

// TestCSVNeutralises: a cell a spreadsheet would run as a formula starts
// with "'"; the file still parses, each cell one cell.
func TestCSVNeutralises(t *testing.T) {
	cells := []string{"=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "ok", "a\nb"}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = escape.CSV(c)
	}
	require.NoError(t, w.Write(row))
	w.Flush()
	got, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, got, 1, "one line: a newline in a cell does not start a row")
	for i, c := range got[0] {
		switch cells[i][0] {
		case '=', '+', '-', '@', '\t', '\r':
			assert.True(t, strings.HasPrefix(c, "'"), "cell %q → %q", cells[i], c)
		default:
			assert.False(t, strings.HasPrefix(c, "'"), "cell %q → %q", cells[i], c)
		}
		assert.NoError(t, escape.CheckLine(c))
	}
}

// TestJSONNeutralises: what encoding/json leaves raw (DEL, C1, bidi)
// becomes \u escapes, and the JSON decodes to the same value.
func TestJSONNeutralises(t *testing.T) {
	v := map[string]string{"model": "a\x7fb\u009b2J\u202ec\x1b<>"}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	out := escape.JSON(b.Bytes())
	assert.NoError(t, escape.CheckLine(strings.TrimSpace(string(out))), "%q", out)
	var back map[string]string
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, v, back)
	plain := []byte(`{"a":"b"}`)
	assert.Equal(t, plain, escape.JSON(plain))
}

// TestWriterNeutralises: a stream keeps its newlines and tabs and nothing
// else that acts, whatever the write boundaries; a rune split across
// writes comes out whole.
func TestWriterNeutralises(t *testing.T) {
	in := "ok\ttab\n" + attacks["clipboard (OSC 52)"] + "日本\u202e\n" + "FAIL\rok\n"
	for _, step := range []int{1, 2, 3, 5, len(in)} {
		var out bytes.Buffer
		w := escape.NewWriter(&out)
		for i := 0; i < len(in); i += step {
			_, err := w.Write([]byte(in[i:min(i+step, len(in))]))
			require.NoError(t, err)
		}
		require.NoError(t, w.Close())
		assert.Equal(t, "ok\ttab\n"+`\x1b]52;c;cm0gLXJmIH4K\a日本\u202e`+"\n"+`FAIL\rok`+"\n", out.String(), "writes of %d bytes", step)
	}
	var out bytes.Buffer
	w := escape.NewWriter(&out)
	w.Write([]byte("cut \xe6\x97"))
	w.Close()
	assert.Equal(t, `cut \xe6\x97`, out.String(), "a rune cut short at the end")
}

// TestCheckNames: a name that would need an escape, or that would step
// out of its directory, is refused saying what is allowed.
func TestCheckNames(t *testing.T) {
	for name, tc := range map[string]struct {
		in         string
		line, file string // "" when accepted
	}{
		"plain":           {"extract-001", "", ""},
		"model with /":    {"meta-llama/Llama-3", "", `holds a path separator`},
		"newline":         {"m\nBenchmarkFake-2 1 1 ttft-p95-ms", "holds a control character", "holds a control character"},
		"escape":          {"\x1b]0;x\x07", "holds a control character", "holds a control character"},
		"bidi":            {"a\u202eb", "bidi control", "bidi control"},
		"dot dot":         {"..", "", `is "." or ".."`},
		"backslash":       {`a\b`, "", "path separator"},
		"empty":           {"", "is empty", "is empty"},
		"long":            {strings.Repeat("x", 201), "", "longer than 200 bytes"},
		"not UTF-8":       {"\xff", "not UTF-8", "not UTF-8"},
		"unicode allowed": {"résumé-日本", "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			check := func(err error, want string) {
				t.Helper()
				if want == "" {
					assert.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.Contains(t, err.Error(), want)
				assert.Contains(t, err.Error(), "(allowed: ")
				assert.NoError(t, escape.CheckLine(err.Error()), "the error is printable itself")
			}
			check(escape.CheckLine(tc.in), tc.line)
			check(escape.CheckFileName(tc.in), tc.file)
		})
	}
}
