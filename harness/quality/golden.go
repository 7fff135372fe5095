package quality

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/secret"
)

// Reporter is what Golden needs of a test: *testing.T and testing.TB are
// Reporters, and this package stays free of the testing package.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// GoldenOption changes what Golden does.
type GoldenOption func(*goldenConfig)

type goldenConfig struct{ secrets *secret.Set }

// Refuse adds secret values Golden never writes to a golden or .got file
// nor prints in a diff: pass those of the configuration (config.Secrets).
func Refuse(set *secret.Set) GoldenOption {
	return func(c *goldenConfig) { c.secrets = c.secrets.Union(set) }
}

// Golden compares got with the golden file at path, or with update writes it.
// JSON is compared canonically when both sides parse (key order and spacing
// do not matter); anything else is compared as text. On a mismatch it
// writes path+".got" beside the golden file, reports a line diff with
// t.Errorf and returns false; on a match it removes a stale .got. It never
// writes content holding a secret — the value of a *_API_KEY or *_TOKEN
// environment variable, or one given with Refuse — and its diff shows
// every secret redacted. Call Scrub first on recorded responses.
func Golden(t Reporter, path string, got []byte, update bool, opts ...GoldenOption) bool {
	t.Helper()
	var c goldenConfig
	for _, o := range opts {
		o(&c)
	}
	sec := envSecrets().Union(c.secrets)
	if name, found := findSecret([]byte(path), sec); found {
		// A case id or an endpoint name holding a key would become a
		// file name, and the path is printed in every message below.
		t.Errorf("golden %s: %v", sec.Redact(path), &SecretError{Var: name, Path: true})
		return false
	}
	if update {
		if err := writeFileSafe(path, got, sec); err != nil {
			t.Errorf("golden %s: %v", path, err)
			return false
		}
		removeStale(t, path)
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden %s: %v (run with -update to create it)", path, err)
		writeGot(t, path, got, sec)
		return false
	}
	wantText, gotText := string(want), string(got)
	if cw, cg, ok := canonicalPair(want, got); ok {
		wantText, gotText = cw, cg
	}
	if wantText == gotText {
		removeStale(t, path)
		return true
	}
	where := fmt.Sprintf("got written to %s.got, rerun with -update to accept", path)
	if !writeGot(t, path, got, sec) {
		where = "got not written"
	}
	t.Errorf("golden %s differs (- want, + got; %s):\n%s", path, where, LineDiff(sec.Redact(wantText), sec.Redact(gotText)))
	return false
}

func removeStale(t Reporter, path string) {
	t.Helper()
	if err := os.Remove(path + ".got"); err != nil && !os.IsNotExist(err) {
		t.Errorf("golden %s: removing stale .got: %v", path, err)
	}
}

func writeGot(t Reporter, path string, got []byte, sec *secret.Set) bool {
	t.Helper()
	if err := writeFileSafe(path+".got", got, sec); err != nil {
		t.Errorf("golden %s.got: %v", path, err)
		return false
	}
	return true
}

// canonicalPair pretty-prints both sides canonically if both are JSON, so
// the diff shows only real changes, one per line.
func canonicalPair(a, b []byte) (string, string, bool) {
	va, errA := decodeOne(string(bytes.TrimSpace(a)))
	vb, errB := decodeOne(string(bytes.TrimSpace(b)))
	if errA != nil || errB != nil {
		return "", "", false
	}
	ca, errA := marshalCanonical(va, "  ")
	cb, errB := marshalCanonical(vb, "  ")
	if errA != nil || errB != nil {
		return "", "", false
	}
	return string(ca) + "\n", string(cb) + "\n", true
}

// SecretError is returned when content to be written holds a secret; it
// names the environment variable it came from when there is one, never
// the value; Path says it is the file's name that holds it (a case id, an
// endpoint name), not its content.
type SecretError struct {
	Var  string
	Path bool
}

func (e *SecretError) Error() string {
	what := "content"
	if e.Path {
		what = "the file name (a case id or an endpoint name)"
	}
	if e.Var == "" {
		return "refusing to write: " + what + " holds a secret of the configuration (an API key, a header value or a URL query value)"
	}
	return "refusing to write: " + what + " holds the value of $" + e.Var
}

// GoldenFile is the golden file of a case answered by an endpoint:
// dir/<endpoint>/<case>.golden, endpoint as a benchmark name writes it
// (endpointDir: sample.NameValue). Each name must be one element of a
// path as it is (escape.CheckFileName): a case id "../x" or one holding a
// newline is an error, not a file elsewhere.
func GoldenFile(dir, endpointDir, caseID string) (string, error) {
	if err := escape.CheckFileName(endpointDir); err != nil {
		return "", fmt.Errorf("endpoint: %w", err)
	}
	if err := escape.CheckFileName(caseID); err != nil {
		return "", fmt.Errorf("case id: %w", err)
	}
	return filepath.Join(dir, endpointDir, caseID+".golden"), nil
}

func secretVar(name string) bool { return secret.Var(name) }

func envSecrets() *secret.Set { return secret.FromEnvironment() }

// findSecret says where a secret in content comes from: the name of its
// environment variable, "" for one of sec's, and false when there is none.
// Short values are skipped by the rule of package secret (MinLen).
func findSecret(content []byte, sec *secret.Set) (string, bool) {
	if !sec.Contains(content) {
		return "", false
	}
	for _, kv := range os.Environ() {
		name, val, ok := strings.Cut(kv, "=")
		if ok && secretVar(name) && len(val) >= secret.MinLen && secret.New(val).Contains(content) {
			return name, true
		}
	}
	return "", true
}

// writeFileSafe refuses secrets, then writes atomically (temp file + rename)
// so that an interrupted -update never leaves half a golden file.
func writeFileSafe(path string, content []byte, sec *secret.Set) error {
	if name, found := findSecret(content, sec); found {
		return &SecretError{Var: name}
	}
	return atomicfile.Write(path, content)
}

// volatile reports whether a JSON key holds a value that changes on every
// run: response ids, creation times, backend fingerprints, timestamps.
func volatile(key string) bool {
	switch strings.ToLower(key) {
	case "id", "created", "system_fingerprint", "timestamp":
		return true
	}
	// Suffixes catch created_at, expires_at, response_time and the like;
	// bare "date" and "time" are left alone: an invoice has a date.
	k := strings.ToLower(key)
	return strings.HasSuffix(k, "_at") || strings.HasSuffix(k, "_timestamp") || strings.HasSuffix(k, "_time")
}

// Scrub removes volatile fields from JSON content so that a golden file
// records only what should be stable. A document that is one JSON value
// comes back canonical and indented; otherwise each line that is JSON, or an
// SSE "data: " line carrying JSON, is scrubbed in place, and other lines are
// kept as they are.
func Scrub(content []byte) []byte {
	if v, err := decodeOne(string(bytes.TrimSpace(content))); err == nil {
		if out, err := marshalCanonical(scrubValue(v), "  "); err == nil {
			return append(out, '\n')
		}
	}
	lines := bytes.Split(content, []byte("\n"))
	for i, line := range lines {
		prefix, body := []byte(nil), line
		if rest, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			prefix, body = []byte("data: "), rest
		}
		v, err := decodeOne(string(body))
		if err != nil {
			continue
		}
		if out, err := marshalCanonical(scrubValue(v), ""); err == nil {
			lines[i] = append(prefix, out...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

func scrubValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if volatile(k) {
				delete(x, k)
				continue
			}
			x[k] = scrubValue(e)
		}
	case []any:
		for i, e := range x {
			x[i] = scrubValue(e)
		}
	}
	return v
}

// LineDiff returns a unified-style diff of two texts: hunks of changed lines
// with three lines of context, "-" for want and "+" for got, each line
// escaped for a terminal (escape.Text): the texts are answers an endpoint
// sent, printed in go test output.
func LineDiff(want, got string) string {
	a, b := splitLines(want), splitLines(got)
	ops := diffOps(a, b)
	var out strings.Builder
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		// Extend the hunk while changes are within 2*context of each other.
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		end = min(end+context, len(ops)-1)
		fmt.Fprintf(&out, "@@ -%d +%d @@\n", ops[start].ai+1, ops[start].bi+1)
		for _, op := range ops[start : end+1] {
			out.WriteByte(op.kind)
			out.WriteString(escape.Text(op.text)) // an answer's text, for a terminal
			out.WriteByte('\n')
		}
		i = end + 1
	}
	return out.String()
}

type diffOp struct {
	kind   byte // ' ', '-', '+'
	text   string
	ai, bi int // line index in want and got where the op sits
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffOps is a longest-common-subsequence line diff. Quadratic, which is
// fine for golden files; beyond a few thousand lines it degrades to "all
// removed, all added" rather than use unbounded memory.
func diffOps(a, b []string) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > 4_000_000 {
		for i, s := range a {
			ops = append(ops, diffOp{'-', s, i, 0})
		}
		for j, s := range b {
			ops = append(ops, diffOp{'+', s, len(a), j})
		}
		return ops
	}
	// lcs[i][j] = LCS length of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i, j})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			// Removals first on a tie, so a changed line reads "-old +new".
			ops = append(ops, diffOp{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		}
	}
	return ops
}
