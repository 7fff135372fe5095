package quality

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/secret"
)

const canaryKey = "sk-CANARYKEY-0123456789abcdef"

// TestCaseIDsChecked: a case id is printed and becomes a golden file's
// name, so one that needs an escape, steps out of its directory or holds
// a key is refused at its line, saying what is allowed; the error does
// not repeat the key.
func TestCaseIDsChecked(t *testing.T) {
	t.Setenv("LLMSLA_CANARY_API_KEY", canaryKey)
	for name, tc := range map[string]struct{ id, want string }{
		"a newline":       {`s1\nBenchmarkFake-2 1 1 ttft-p95-ms`, `:1: id: "s1\nBenchmarkFake-2 1 1 ttft-p95-ms" holds a control character`},
		"an escape":       {`\u001b]52;c;eA==\u0007`, `:1: id: "\x1b]52;c;eA==\a" holds a control character`},
		"a path":          {`../../etc/x`, `:1: id: "../../etc/x" holds a path separator`},
		"dot dot":         {`..`, `:1: id: ".." is "." or ".."`},
		"a key":           {canaryKey, ":1: id: holds the value of $LLMSLA_CANARY_API_KEY: a case id is printed and becomes a golden file's name"},
		"a key in a name": {"case-" + strings.ToUpper(canaryKey), ":1: id: holds the value of $LLMSLA_CANARY_API_KEY"},
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "cases.jsonl", strings.Replace(goodLine, `"id":"s1"`, `"id":"`+tc.id+`"`, 1)+"\n")
			_, err := LoadCases(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, strings.ToLower(err.Error()), "canarykey")
		})
	}
	p := writeFile(t, t.TempDir(), "cases.jsonl", goodLine+"\n")
	cases, err := LoadCases(p)
	require.NoError(t, err)
	assert.NoError(t, CheckIDs(cases, secret.New("another-secret-value")))
	cases[0].ID = "x-" + canaryKey
	assert.ErrorContains(t, CheckIDs(cases, secret.New(canaryKey)), p+":1: id: holds a secret of the configuration")
}

// TestGoldenFileNames: the golden file of a case is one file in its
// endpoint's directory; an id or endpoint that is not one path element is
// an error, and Golden never writes a file whose name holds a secret nor
// prints that name unredacted.
func TestGoldenFileNames(t *testing.T) {
	dir := t.TempDir()
	p, err := GoldenFile(dir, "sim", "chat-001")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "sim", "chat-001.golden"), p)
	for _, bad := range [][2]string{{"sim", "../../x"}, {"..", "c"}, {"sim", "a\nb"}, {"a/b", "c"}} {
		_, err := GoldenFile(dir, bad[0], bad[1])
		var ne *escape.NameError
		assert.ErrorAs(t, err, &ne, "%q", bad)
	}

	t.Setenv("LLMSLA_CANARY_API_KEY", canaryKey)
	for name, sec := range map[string]*secret.Set{"environment": nil, "configuration": secret.New("hdr-secret-value-123")} {
		t.Run(name, func(t *testing.T) {
			id := canaryKey
			if sec != nil {
				id = "hdr-secret-value-123"
			}
			path, err := GoldenFile(dir, "sim", id)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			rec := &recorder{TB: t}
			for _, update := range []bool{true, false} {
				rec.errs = nil
				assert.False(t, Golden(rec, path, []byte("an answer"), update, Refuse(sec)))
				require.Len(t, rec.errs, 1)
				assert.Contains(t, rec.errs[0], "refusing to write: the file name (a case id or an endpoint name) holds")
				assert.NotContains(t, rec.errs[0], id)
				assert.Contains(t, rec.errs[0], filepath.Join("sim", secret.Redacted+".golden"))
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			assert.Empty(t, entries, "no golden or .got file was written")
		})
	}
}

// TestLineDiffEscapes: a diff of answers shows their control characters,
// so that an answer holding terminal escapes cannot act on go test's
// output, nor a CR hide a changed line.
func TestLineDiffEscapes(t *testing.T) {
	d := LineDiff("same\nold", "same\n\x1b]0;pwned\x07new\rold")
	assert.Contains(t, d, `+\x1b]0;pwned\anew\rold`)
	for _, line := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
		assert.NoError(t, escape.CheckLine(line))
	}
}
