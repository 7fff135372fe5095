package stream_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// Secrets with a prefix of their own, so that any part of one is found.
const (
	echoKey    = "KEYq7-0123456789abcdefghij"
	echoHeader = "HDRq7-0123456789abcdefghij"
	echoQuery  = "QRYq7-0123456789abcdefghij"
)

// assertNoSecret fails when text holds any 5-byte piece of a secret's
// start: the secret whole, or what is left of it where text was cut.
func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, sec := range []string{echoKey, echoHeader, echoQuery} {
		if strings.Contains(text, sec[:5]) {
			t.Errorf("%s holds part of the secret %s…: %q", what, sec[:5], text)
		}
	}
}

// TestSecretsNeverInSamples: a server that sends back the request's key,
// header value and query value — in its answer, cut into tokens and cut
// again by the content limit at every position, and in an error message
// longer than the 200 bytes a sample keeps — leaves none of them, whole or
// in part, in any field of any sample.
func TestSecretsNeverInSamples(t *testing.T) {
	cfg := sim.Default()
	cfg.Echo = true
	cfg.Faults = map[string]float64{sim.FaultEchoError: 0.5}
	_, base := sim.Start(t, cfg)
	ep := stream.Endpoint{Name: "sim", BaseURL: base + "?api-version=2024&api-key=" + url.QueryEscape(echoQuery), Model: "m",
		APIKey: echoKey, Headers: map[string]string{"X-Tenant-Token": echoHeader}, Timeouts: testTimeouts}
	redacted, errors := 0, 0
	// The answer is "echo key=… header=… query=…": content limits from 1
	// to past its end cut it before, inside and after each secret.
	for limit := 1; limit < 110; limit += 3 {
		c := stream.NewClient(ep, stream.MaxContent(limit))
		for _, s := range load.NewRunner().Run(context.Background(), c, hello(), load.Closed(2), 2) {
			b, err := json.Marshal(s)
			require.NoError(t, err)
			assertNoSecret(t, "sample", string(b))
			if s.ErrKind == sample.KindClientError {
				errors++ // its secrets come after the 200 bytes kept
			}
			if strings.Contains(s.Content, "[redacted]") {
				redacted++
			}
		}
		c.CloseIdle()
	}
	assert.Greater(t, errors, 0, "no echo_error was injected")
	assert.Greater(t, redacted, 0, "no answer held a secret to redact: the test saw nothing")
}

// TestSecretsAtACut: a secret that a cut falls inside — the 200 bytes of a
// message kept, the 4 KiB of an error body read — leaves no part of itself.
func TestSecretsAtACut(t *testing.T) {
	cases := map[string]struct {
		status      int
		contentType string
		body        string
		kind        sample.ErrorKind
	}{
		"message cut at 200": {400, "application/json",
			`{"error":{"message":"` + strings.Repeat("x", 190) + echoKey + ` and more"}}`, sample.KindClientError},
		"body cut at 4 KiB": {503, "text/html",
			strings.Repeat("<b>", 1360) + " " + echoKey + " and more", sample.KindServerError},
		"midstream error event": {200, "text/event-stream",
			"event: error\ndata: " + strings.Repeat("y", 195) + echoHeader + "\n\n", sample.KindMidstream},
		"undecodable chunk": {200, "text/event-stream",
			"data: {" + strings.Repeat("z", 70) + echoQuery + "\n\n", sample.KindProtocol},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := stream.NewClient(stream.Endpoint{Name: "x", BaseURL: srv.URL + "/v1?key=" + echoQuery, Model: "m",
				APIKey: echoKey, Headers: map[string]string{"X-Token": echoHeader}})
			s := c.Do(context.Background(), hello().Prompt(0).Request)
			assert.Equal(t, tc.kind, s.ErrKind, s.Err)
			assertNoSecret(t, "error", s.Err)
		})
	}
}

// TestSecretsNeverInToolCallsOrProvenance: a server that puts the key in
// a tool call's id, name and arguments (split over fragments, and cut by
// the capture limit at every position) and in the response's model and
// system fingerprint leaves no part of it in the sample.
func TestSecretsNeverInToolCallsOrProvenance(t *testing.T) {
	frag := func(args string) string {
		return `data: {"id":"c1","model":"` + echoKey + `","system_fingerprint":"fp-` + echoKey + `","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + args + `"}}]}}]}` + "\n\n"
	}
	body := `data: {"id":"` + echoKey + `","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call-` + echoKey + `","function":{"name":"f_` + echoKey + `","arguments":""}}]}}]}` + "\n\n" +
		frag(`{\"k\":\"`+echoKey[:9]) + frag(echoKey[9:]+`\"}`) +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	redacted := 0
	for limit := 1; limit < 50; limit++ {
		c := stream.NewClient(stream.Endpoint{Name: "x", BaseURL: srv.URL + "/v1", Model: "m", APIKey: echoKey}, stream.MaxContent(limit))
		s := c.Do(context.Background(), hello().Prompt(0).Request)
		c.CloseIdle()
		require.True(t, s.OK(), s.Err)
		require.Len(t, s.ToolCalls, 1)
		b, err := json.Marshal(s)
		require.NoError(t, err)
		assertNoSecret(t, "sample", string(b))
		if strings.Contains(s.ToolCalls[0].Arguments, "[redacted]") {
			redacted++
		}
	}
	assert.Positive(t, redacted, "no arguments held the whole key to redact: the test saw nothing")
}
