package stream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestHostileToolCallStreams: a stream's tool calls as a hostile or broken
// server sends them — an index negative, past an int, a float or a
// string, thousands of calls, arguments holding NUL, escapes and bytes
// that are not UTF-8, an argument string of 10 MiB — become a sample that
// passes the samples file's check and reads back from it, or a protocol
// error naming the chunk; never a run stopped by a sample llmsla cannot
// write.
func TestHostileToolCallStreams(t *testing.T) {
	chunk := func(calls string) string {
		return `data: {"choices":[{"index":0,"delta":{"tool_calls":[` + calls + `]}}]}` + "\n\n"
	}
	end := `data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	many := ""
	for i := range 5000 {
		many += chunk(`{"index":` + strconv.Itoa(i) + `,"id":"c` + strconv.Itoa(i) + `","function":{"name":"f","arguments":"{}"}}`)
	}
	cases := map[string]struct {
		body  string
		kind  sample.ErrorKind // "" for a successful request
		calls int
		cut   bool
	}{
		"a negative index": {body: chunk(`{"index":-1,"id":"a","function":{"name":"f","arguments":"{}"}}`) + end, calls: 1},
		"an index past an int": {body: chunk(`{"index":99999999999999999999,"id":"a","function":{"name":"f","arguments":"{}"}}`) + end,
			kind: sample.KindProtocol},
		"a float index":                 {body: chunk(`{"index":1.5,"id":"a","function":{"name":"f","arguments":"{}"}}`) + end, kind: sample.KindProtocol},
		"a string index":                {body: chunk(`{"index":"0","id":"a","function":{"name":"f","arguments":"{}"}}`) + end, kind: sample.KindProtocol},
		"an index of 2^40":              {body: chunk(`{"index":1099511627776,"id":"a","function":{"name":"f","arguments":"{}"}}`) + end, calls: 1},
		"5000 calls":                    {body: many + end, calls: sample.MaxToolCalls, cut: true},
		"NUL and escapes in arguments":  {body: chunk(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":\"\u0000\u001b[2J\"}"}}`) + end, calls: 1},
		"arguments not UTF-8":           {body: chunk("{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"\xff\xfe\"}}") + end, calls: 1},
		"10 MiB of arguments":           {body: chunk(`{"index":0,"id":"a","function":{"name":"f","arguments":"`+strings.Repeat("a", 10<<20)+`"}}`) + end, kind: sample.KindProtocol},
		"a name of 1 KiB":               {body: chunk(`{"index":0,"id":"a","function":{"name":"`+strings.Repeat("n", 1024)+`","arguments":"{}"}}`) + end, calls: 1},
		"a name with a bidi override":   {body: chunk(`{"index":0,"id":"a","function":{"name":"get\u202eweather","arguments":"{}"}}`) + end, calls: 1},
		"arguments nested deep as JSON": {body: chunk(`{"index":0,"id":"a","function":{"name":"f","arguments":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}}`) + end, kind: sample.KindProtocol},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := stream.NewClient(stream.Endpoint{Name: "x", BaseURL: srv.URL + "/v1", Model: "m", Timeouts: testTimeouts})
			defer c.CloseIdle()
			s := c.Do(context.Background(), hello().Prompt(0).Request)
			s.Scenario = "tools"
			if tc.kind != "" {
				assert.Equal(t, tc.kind, s.ErrKind, s.Err)
				assert.NotContains(t, s.Err, "\x1b")
			} else {
				require.True(t, s.OK(), s.Err)
				assert.Len(t, s.ToolCalls, tc.calls)
				assert.Equal(t, tc.cut, s.ToolCallsCut)
			}
			require.NoError(t, s.Check(), "the sample passes the samples file's check")
			path := filepath.Join(t.TempDir(), "r.samples.jsonl")
			f, err := sample.Create(path, nil)
			require.NoError(t, err)
			f.Write(&s)
			require.NoError(t, f.Close())
			back, err := sample.Read(path)
			require.NoError(t, err, "the samples file reads back")
			require.Len(t, back, 1)
			assert.Equal(t, len(s.ToolCalls), len(back[0].ToolCalls))
		})
	}
}
