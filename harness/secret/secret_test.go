package secret

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
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
