package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

const key = "sk-Zq81&secret/value+=="

func TestRedactEveryForm(t *testing.T) {
	s := New(key, "short", "")
	js, _ := json.Marshal(key)
	for name, text := range map[string]string{
		"raw":   "Bearer " + key + ".",
		"query": "Post \"http://h/v1?key=" + url.QueryEscape(key) + "\": refused",
		"path":  "/v1/" + url.PathEscape(key),
		"json":  `{"content":` + string(js) + `}`,
	} {
		got := s.Redact(text)
		if strings.Contains(got, "Zq81") || !strings.Contains(got, Redacted) {
			t.Errorf("%s: %q → %q", name, text, got)
		}
		if !s.Contains([]byte(text)) {
			t.Errorf("%s: Contains false", name)
		}
	}
	if got := s.Redact("a short text"); got != "a short text" {
		t.Errorf("a value under MinLen redacted: %q", got)
	}
	var none *Set
	if none.Redact(key) != key || !none.Empty() {
		t.Error("a nil set changed text")
	}
}

// TestCutLeavesNoPrefix: a secret that straddles the cut leaves nothing of
// itself before it, at any cut position.
func TestCutLeavesNoPrefix(t *testing.T) {
	s := New(key)
	text := strings.Repeat("x", 30) + key + strings.Repeat("y", 30)
	for n := 0; n < len(text); n++ {
		got := s.Cut(text, n)
		for k := 3; k <= len(key); k++ {
			if strings.Contains(got, key[:k]) {
				t.Fatalf("Cut(…, %d) = %q keeps %q", n, got, key[:k])
			}
		}
	}
	// Cut where the text was already cut upstream, mid-secret.
	if got := s.TrimPartial("error: " + key[:10]); got != "error: " {
		t.Errorf("TrimPartial = %q", got)
	}
	if got := s.Cut("héllo wörld", 2); got != "h…" {
		t.Errorf("cut inside a rune: %q", got)
	}
}

// TestWriterSplitSecret: a secret written a byte at a time, across lines
// and past the held-back limit, never comes out.
func TestWriterSplitSecret(t *testing.T) {
	s := New(key)
	var out bytes.Buffer
	w := NewWriter(&out, s)
	in := "line " + key + "\n" + strings.Repeat("z", maxHeld) + key + "tail " + key[:12]
	for i := 0; i < len(in); i++ {
		w.Write([]byte{in[i]})
	}
	w.Close()
	if strings.Contains(out.String(), key[:8]) {
		t.Errorf("output keeps part of the secret")
	}
	if strings.Count(out.String(), Redacted) != 2 || !strings.HasSuffix(out.String(), "tail ") || !strings.HasPrefix(out.String(), "line [redacted]\n") {
		t.Errorf("output %q…%q", out.String()[:20], out.String()[len(out.String())-30:])
	}
	if out.Len() != len(in)-3*len(key)+2*len(Redacted)+len(key)-12 {
		t.Errorf("output length %d: bytes lost or added", out.Len())
	}
}

// TestRedactEncodedForms: the forms a secret takes when a server or a
// layer of quoting encodes it — base64 and hex of the whole value, upper
// case, \uXXXX escapes of some or all of its characters behind one
// backslash or more — are redacted wherever they are, and nothing of the
// secret is left.
func TestRedactEncodedForms(t *testing.T) {
	const canary = "sk-CANARYKEY-0123456789abcdef"
	s := New(canary)
	uescape := func(v string, every bool, slashes string) string {
		var b strings.Builder
		for _, r := range v {
			if every || r == '-' {
				fmt.Fprintf(&b, `%su%04x`, slashes, r)
			} else {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	raw, _ := json.Marshal(`undecodable chunk: {"content":"` + uescape(canary, false, `\`) + `"`)
	for name, form := range map[string]string{
		"base64 std":                     base64.StdEncoding.EncodeToString([]byte(canary)),
		"base64 std unpadded":            base64.RawStdEncoding.EncodeToString([]byte(canary)),
		"base64 url":                     base64.URLEncoding.EncodeToString([]byte(canary)),
		"base64 url unpadded":            base64.RawURLEncoding.EncodeToString([]byte(canary)),
		"hex":                            hex.EncodeToString([]byte(canary)),
		"HEX":                            strings.ToUpper(hex.EncodeToString([]byte(canary))),
		"upper case":                     strings.ToUpper(canary),
		"lower case":                     strings.ToLower(canary),
		"\\u002d in a raw chunk":         uescape(canary, false, `\`),
		"every rune \\u-escaped":         uescape(canary, true, `\`),
		"upper-case \\u002D":             strings.ReplaceAll(uescape(canary, false, `\`), "002d", "002D"),
		"a quoted chunk in JSON (\\\\u)": string(raw),
		"url-escaped upper case":         strings.ToUpper(url.QueryEscape(canary)),
	} {
		t.Run(name, func(t *testing.T) {
			text := "error: " + form + " and after"
			got := s.Redact(text)
			assert.Equal(t, 1, strings.Count(got, Redacted), "%q → %q", text, got)
			assert.True(t, strings.HasPrefix(got, "error: ") && strings.HasSuffix(got, " and after"), got)
			for _, part := range []string{"CANARY", "canary", "0123456789", hex.EncodeToString([]byte("CANARY"))} {
				assert.NotContains(t, got, part)
			}
			assert.True(t, s.Contains([]byte(text)))
			var out bytes.Buffer
			w := NewWriter(&out, s)
			for i := 0; i < len(text); i++ {
				w.Write([]byte{text[i]})
			}
			w.Close()
			assert.Equal(t, got, out.String(), "the Writer redacts it written a byte at a time")
		})
	}
	for _, text := range []string{"sk-CANARY", `\u0073k`, "736b2d", "plain text"} {
		assert.Equal(t, text, s.Redact(text), "not the secret")
	}
}

// TestTrimPartialEncoded: text cut inside an upper-cased or \u-escaped
// secret drops what is left of it.
func TestTrimPartialEncoded(t *testing.T) {
	s := New(key)
	assert.Equal(t, "error: ", s.TrimPartial("error: "+strings.ToUpper(key[:10])))
	assert.Equal(t, "error: ", s.TrimPartial(`error: sk\u002dZq81`))
}
