package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestEcho sends secrets in every place a client puts them and checks that
// they come back whole, in the answer (Echo) and in an error message
// (echo_error), where a client's redaction has to find them.
func TestEcho(t *testing.T) {
	const (
		bearer = "sk-live-0123456789abcdef"
		xKey   = "xk-secret-42"
		xOrg   = "org-7f3a"
		azure  = "az-key-9c1d"
		qSig   = "sv-sig-abc123"
	)
	secrets := []string{bearer, azure, xKey, xOrg, "2024-06-01", qSig}
	want := "echo key=" + bearer + " header=" + azure + " header=" + xKey + " header=" + xOrg +
		" query=2024-06-01 query=" + qSig
	send := func(t *testing.T, url, fault string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions?sig="+qSig+"&api-version=2024-06-01",
			strings.NewReader(streamBody))
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("X-Api-Key", xKey)
		req.Header.Set("x-org", xOrg)
		req.Header.Set("api-key", azure)
		req.Header.Set(FaultHeader, fault) // never echoed
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	t.Run("answer", func(t *testing.T) {
		cfg := fast()
		cfg.Echo, cfg.WrongRate = true, 1 // Echo wins over a wrong answer
		srv, url := Start(t, cfg)
		resp := send(t, url, "none")
		evs, _ := readSSE(t, resp.Body, "\n")
		resp.Body.Close()
		s, tr := summarize(t, evs), srv.Truth()[0]
		if s.content != want || tr.Answer != want || tr.Wrong || s.finish != "stop" {
			t.Fatalf("content %q (truth %q, wrong %v), finish %q; want %q", s.content, tr.Answer, tr.Wrong, s.finish, want)
		}
		// The token is longer than a token: no single chunk holds it, so
		// redacting chunk by chunk cannot work.
		for _, ev := range evs {
			if strings.Contains(ev.data, bearer) {
				t.Errorf("one chunk holds the whole bearer token: %q", ev.data)
			}
		}
	})

	t.Run("error", func(t *testing.T) {
		srv, url := Start(t, fast())
		resp := send(t, url, FaultEchoError)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error struct{ Message, Type string } `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != 400 || e.Error.Type != "invalid_request_error" {
			t.Fatalf("status %d, body %q (%v); want 400 with an OpenAI error", resp.StatusCode, body, err)
		}
		msg := e.Error.Message
		if !strings.HasSuffix(msg, want) {
			t.Errorf("message %q does not end with the secrets %q", msg, want)
		}
		for _, s := range secrets {
			if i := strings.Index(msg, s); i <= 200 {
				t.Errorf("secret %q at %d of the message, want past 200 characters", s, i)
			}
		}
		if tr := srv.Truth()[0]; tr.Status != 400 || tr.Fault != FaultEchoError || tr.OutputTokens != 0 {
			t.Errorf("truth %+v", tr)
		}
	})

	t.Run("nothing to echo", func(t *testing.T) {
		cfg := fast()
		cfg.Echo = true
		srv, url := Start(t, cfg)
		resp, err := post(t, http.DefaultClient, url, streamBody, "")
		if err != nil {
			t.Fatal(err)
		}
		rawBody(t, resp, 1<<20)
		if tr := srv.Truth()[0]; tr.Answer != "echo" {
			t.Errorf("answer %q with no secrets sent, want \"echo\"", tr.Answer)
		}
	})
}
