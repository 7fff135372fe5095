package sim

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/lateness"
)

// The tool tests read the wire as the other tests do, with a plain SSE
// reading and encoding/json, and assemble calls by the rules of
// METRICS.md's tool_calls: deltas joined by index; a delta without index
// continues the last call, unless it opens one with an id; a delta with no
// name or argument bytes adds nothing.

const weatherQ = "What is the weather in Paris, and the time there?"

// toolsBody is a request offering get_weather and get_time, with the
// messages after the system one given as JSON.
func toolsBody(stream bool, extra string) string {
	msgs := `{"role":"user","content":"` + weatherQ + `"}`
	if extra != "" {
		msgs += "," + extra
	}
	s := `{"model":"m","stream":false,`
	if stream {
		s = `{"model":"m","stream":true,"stream_options":{"include_usage":true},`
	}
	return s + `"tools":[` +
		`{"type":"function","function":{"name":"get_weather","parameters":{"type":"object",` +
		`"properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","unit"]}}},` +
		`{"type":"function","function":{"name":"get_time","parameters":{"type":"object",` +
		`"properties":{"tz":{"type":"string"}},"required":["tz"]}}}],` +
		`"messages":[{"role":"system","content":"You are a helpful agent."},` + msgs + `]}`
}

var twoCalls = []ToolCall{
	{Name: "get_weather", Arguments: `{"city":"Paris"}`},
	{Name: "get_time", Arguments: `{"tz":"CET"}`},
}

// toolServer serves cfg with weatherQ answered by steps, then final.
func toolServer(t *testing.T, cfg Config, steps [][]ToolCall, final string) (*Server, string) {
	t.Helper()
	var a Answers
	a.AddTools(weatherQ, steps, final)
	a.Hook(&cfg)
	return Start(t, cfg)
}

// toolChunk is the part of a chunk that tool calls live in.
type wireToolChunk struct {
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// wireTools is what a stream said about tool calls.
type wireTools struct {
	calls       []ToolCall
	first, done time.Time // first delta with name or argument bytes; the finish chunk
	chunks      int       // chunks with name or argument bytes
	usage       int
	finish      string
	deltas      []string // each JSON event's choices[0].delta, verbatim
}

var deltaRE = regexp.MustCompile(`"delta":(.*),"finish_reason":`)

func readTools(t *testing.T, evs []event) wireTools {
	t.Helper()
	var w wireTools
	for _, ev := range evs {
		if ev.comment || ev.data == "[DONE]" {
			continue
		}
		var c wireToolChunk
		if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
			t.Fatalf("chunk %q: %v", ev.data, err)
		}
		if c.Usage != nil {
			w.usage = c.Usage.CompletionTokens
		}
		if m := deltaRE.FindStringSubmatch(ev.data); m != nil {
			w.deltas = append(w.deltas, m[1])
		}
		for _, ch := range c.Choices {
			bytesIn := false
			for _, d := range ch.Delta.ToolCalls {
				k := len(w.calls) - 1
				switch {
				case d.Index != nil:
					k = *d.Index
				case d.ID != "":
					k = len(w.calls)
				}
				for len(w.calls) <= k {
					w.calls = append(w.calls, ToolCall{})
				}
				if d.ID != "" {
					w.calls[k].ID = d.ID
				}
				w.calls[k].Name += d.Function.Name
				w.calls[k].Arguments += d.Function.Arguments
				bytesIn = bytesIn || d.Function.Name != "" || d.Function.Arguments != ""
			}
			if bytesIn {
				w.chunks++
				if w.first.IsZero() {
					w.first = ev.at
				}
			}
			if ch.FinishReason != nil {
				w.finish, w.done = *ch.FinishReason, ev.at
			}
		}
	}
	return w
}

func streamTools(t *testing.T, url, body string) wireTools {
	t.Helper()
	resp, err := post(t, http.DefaultClient, url, body, "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, _ := readSSE(t, resp.Body, "\n")
	return readTools(t, evs)
}

// TestToolFraming: the deltas each framing sends for two parallel calls
// are the vendor's bytes, and every framing says the same calls with the
// same usage.
func TestToolFraming(t *testing.T) {
	const (
		weatherArgs = `"{\"city\":\"Paris\"}"`
		timeArgs    = `"{\"tz\":\"CET\"}"`
		role        = `{"role":"assistant"}`
	)
	cases := map[string]struct {
		deltas []string // after the role chunk, the finish chunk's last
		chunks int
	}{
		ToolsOpenAI: {chunks: 6, deltas: []string{
			`{"tool_calls":[{"index":0,"id":"call_sim0_0","type":"function","function":{"name":"get_weather","arguments":""}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`,
			`{"tool_calls":[{"index":1,"id":"call_sim0_1","type":"function","function":{"name":"get_time","arguments":""}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":\"C"}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":"ET\"}"}}]}`,
			`{}`}},
		ToolsVLLM: {chunks: 6, deltas: []string{
			`{"tool_calls":[{"id":"chatcmpl-tool-sim0-0","type":"function","index":0,"function":{"name":"get_weather"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`,
			`{"tool_calls":[{"id":"chatcmpl-tool-sim0-1","type":"function","index":1,"function":{"name":"get_time"}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":\"C"}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":"ET\"}"}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":""}}]}`}},
		ToolsWhole: {chunks: 2, deltas: []string{
			`{"role":"assistant","content":"","tool_calls":[{"id":"call_sim0_0","index":0,"type":"function","function":{"name":"get_weather","arguments":` + weatherArgs + `}}]}`,
			`{"role":"assistant","content":"","tool_calls":[{"id":"call_sim0_1","index":1,"type":"function","function":{"name":"get_time","arguments":` + timeArgs + `}}]}`,
			`{"role":"assistant","content":""}`}},
		ToolsNoIndex: {chunks: 2, deltas: []string{
			`{"role":"assistant","tool_calls":[{"function":{"arguments":` + weatherArgs + `,"name":"get_weather"},"id":"function-call-sim0-0","type":"function"}]}`,
			`{"role":"assistant","tool_calls":[{"function":{"arguments":` + timeArgs + `,"name":"get_time"},"id":"function-call-sim0-1","type":"function"}]}`,
			`{}`}},
		ToolsNoIndexFragments: {chunks: 6, deltas: []string{
			`{"tool_calls":[{"id":"function-call-sim0-0","type":"function","function":{"name":"get_weather","arguments":""}}]}`,
			`{"tool_calls":[{"function":{"arguments":"{\"city\":"}}]}`,
			`{"tool_calls":[{"function":{"arguments":"\"Paris\"}"}}]}`,
			`{"tool_calls":[{"id":"function-call-sim0-1","type":"function","function":{"name":"get_time","arguments":""}}]}`,
			`{"tool_calls":[{"function":{"arguments":"{\"tz\":\"C"}}]}`,
			`{"tool_calls":[{"function":{"arguments":"ET\"}"}}]}`,
			`{}`}},
	}
	for framing, tc := range cases {
		t.Run(framing, func(t *testing.T) {
			cfg := fast()
			cfg.ToolFraming = framing
			srv, url := toolServer(t, cfg, [][]ToolCall{twoCalls}, "")
			w := streamTools(t, url, toolsBody(true, ""))
			if want := append([]string{role}, tc.deltas...); !slices.Equal(w.deltas, want) {
				t.Errorf("deltas:\n%s\nwant:\n%s", strings.Join(w.deltas, "\n"), strings.Join(want, "\n"))
			}
			tr := srv.Truth()[0]
			if w.finish != "tool_calls" || w.usage != 6 || tr.OutputTokens != 6 || w.chunks != tc.chunks || tr.ToolChunks != tc.chunks {
				t.Errorf("finish %q, usage %d, truth %d tokens; %d chunks with bytes, truth %d; want tool_calls, 6, 6, %d, %d",
					w.finish, w.usage, tr.OutputTokens, w.chunks, tr.ToolChunks, tc.chunks, tc.chunks)
			}
			for k := range twoCalls {
				if got := w.calls[k]; got.Name != twoCalls[k].Name || got.Arguments != twoCalls[k].Arguments || got.ID != tr.ToolCalls[k].ID {
					t.Errorf("call %d = %+v, want %+v with the truth's id %q", k, got, twoCalls[k], tr.ToolCalls[k].ID)
				}
			}
		})
	}
}

// TestToolTruth: for every framing, the calls assembled off the wire are
// the truth's, the first tool delta and the finish chunk arrive when the
// truth says they were sent, and usage is the truth's token count. The
// calls' arguments are long enough to stream over several TPOTs.
func TestToolTruth(t *testing.T) {
	calls := []ToolCall{{Name: "get_weather", Arguments: `{"city": "Paris, France", "unit": "celsius", "days": 3}`}}
	for _, framing := range ToolFramings {
		t.Run(framing, func(t *testing.T) {
			cfg := fast()
			cfg.ToolFraming, cfg.TPOT, cfg.ReasoningTokens = framing, 2*time.Millisecond, 2
			srv, url := toolServer(t, cfg, [][]ToolCall{calls}, "")
			const n = 8
			var wire []wireTools
			for range n {
				wire = append(wire, streamTools(t, url, toolsBody(true, "")))
			}
			var lags []time.Duration
			for i, tr := range srv.Truth() {
				w := wire[i]
				if !slices.Equal(w.calls, tr.ToolCalls) || tr.ToolCalls[0].Arguments != calls[0].Arguments {
					t.Fatalf("request %d: wire %+v, truth %+v, expected %+v", i, w.calls, tr.ToolCalls, calls)
				}
				if w.usage != tr.OutputTokens || tr.OutputTokens != 2+1+len(splitTokens(calls[0].Arguments)) ||
					w.chunks != tr.ToolChunks || tr.Finish != "tool_calls" || tr.ToolStep != 1 {
					t.Errorf("request %d: usage %d, chunks %d; truth %+v", i, w.usage, w.chunks, tr)
				}
				if !tr.FirstToken.Before(tr.FirstTool) || tr.FirstAnswer != tr.FirstTool || !tr.ToolDone.After(tr.FirstTool) {
					t.Errorf("request %d: first token %v, answer %v, tool %v, done %v: want reasoning, then the tool, then its end",
						i, tr.FirstToken, tr.FirstAnswer, tr.FirstTool, tr.ToolDone)
				}
				for _, pair := range [][2]time.Time{{w.first, tr.FirstTool}, {w.done, tr.ToolDone}} {
					lags = append(lags, pair[0].Sub(pair[1]).Abs())
				}
			}
			if p := pct(lags, 0.5); p > 2*time.Millisecond {
				t.Errorf("p50 |client − server| over the first tool delta and the finish = %v, want <= 2ms", p)
			}
		})
	}
}

// TestToolWhen: fragments go out TPOT apart from the first token on, a
// whole call when its last token is due: later by the call's length —
// never sooner, and later by at most 5 ms beyond the worst wake the
// lateness probe saw while it streamed. Proven: with the whole call sent
// at the first token's time it is 50 ms early and fails.
func TestToolWhen(t *testing.T) {
	calls := []ToolCall{{Name: "get_weather", Arguments: `{"city": "Paris", "unit": "celsius", "days": 3, "hourly": true}`}}
	tokens := 1 + len(splitTokens(calls[0].Arguments))
	for framing, wantChunks := range map[string]int{ToolsOpenAI: tokens, ToolsWhole: 1} {
		t.Run(framing, func(t *testing.T) {
			cfg := fast()
			cfg.ToolFraming, cfg.TTFT, cfg.TPOT, cfg.TTFTJitter, cfg.TPOTJitter = framing, 10*time.Millisecond, 5*time.Millisecond, 0, 0
			srv, url := toolServer(t, cfg, [][]ToolCall{calls}, "")
			late := lateness.During(func() { streamTools(t, url, toolsBody(true, "")) })
			tr := srv.Truth()[0]
			first := tr.FirstTool.Sub(tr.Received)
			want := tr.TTFTDelay
			if framing == ToolsWhole {
				want += time.Duration(tokens-1) * cfg.TPOT
			}
			// Every fragment's sleep may wake as late as the worst wake.
			slack := 5*time.Millisecond + time.Duration(tokens)*late.Max
			if first < want || first > want+slack || tr.ToolChunks != wantChunks || tr.OutputTokens != tokens {
				t.Errorf("first tool delta %v after arrival, want %v (+%v); %d chunks, %d tokens, want %d, %d; %s",
					first, want, slack, tr.ToolChunks, tr.OutputTokens, wantChunks, tokens, late)
			}
		})
	}
}

// TestAgentLoop: two tool steps and a final answer, each request answered
// with the step its tool results say, timed and counted in the truth.
func TestAgentLoop(t *testing.T) {
	steps := [][]ToolCall{
		{{Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`}},
		{{Name: "get_time", Arguments: `{"tz":"Europe/Paris"}`}},
	}
	cfg := fast()
	cfg.PrefillPerToken, cfg.TTFTJitter = time.Millisecond, 0
	srv, url := toolServer(t, cfg, steps, "It is 18 degrees and 5 pm in Paris.")
	history := ""
	for k := range 3 {
		w := streamTools(t, url, toolsBody(true, history))
		if k < len(steps) {
			if len(w.calls) != 1 || w.calls[0].Name != steps[k][0].Name || w.calls[0].Arguments != steps[k][0].Arguments {
				t.Fatalf("step %d: calls %+v, want %+v", k+1, w.calls, steps[k])
			}
			c := w.calls[0]
			if history != "" {
				history += ","
			}
			history += `{"role":"assistant","tool_calls":[{"id":"` + c.ID + `","type":"function","function":{"name":"` + c.Name +
				`","arguments":` + string(mustJSON(c.Arguments)) + `}}]},{"role":"tool","tool_call_id":"` + c.ID + `","content":"result of step"}`
		}
	}
	trs := srv.Truth()
	if want := historyWords(t, toolsBody(true, history)); trs[2].PromptTokens != want {
		t.Errorf("last step: %d prompt tokens, want %d: every message's words and the calls' names and arguments", trs[2].PromptTokens, want)
	}
	for k, tr := range trs {
		wantFinish, wantCalls := "tool_calls", 1
		if k == 2 {
			wantFinish, wantCalls = "stop", 0
		}
		if tr.ToolStep != k+1 || tr.Finish != wantFinish || len(tr.ToolCalls) != wantCalls {
			t.Errorf("request %d: step %d, finish %q, %d calls; want %d, %q, %d", k, tr.ToolStep, tr.Finish, len(tr.ToolCalls), k+1, wantFinish, wantCalls)
		}
		if k > 0 && (tr.PromptTokens <= trs[k-1].PromptTokens || tr.TTFTDelay != cfg.TTFT+time.Duration(tr.PromptTokens)*cfg.PrefillPerToken) {
			t.Errorf("request %d: %d prompt tokens after %d, ttft delay %v: the history must count, at the prefill cost",
				k, tr.PromptTokens, trs[k-1].PromptTokens, tr.TTFTDelay)
		}
	}
	if trs[2].Answer != "It is 18 degrees and 5 pm in Paris." {
		t.Errorf("final answer %q", trs[2].Answer)
	}
}

// TestToolDefaults: with no hook, a request offering tools calls the
// first tool, or the one tool_choice names, with the arguments its schema
// requires, once; tool_choice "none" gets text.
func TestToolDefaults(t *testing.T) {
	named := `"tool_choice":{"type":"function","function":{"name":"get_time"}},"tools":`
	result := `{"role":"tool","tool_call_id":"x","content":"18 C"}`
	cases := map[string]struct {
		body string
		want []ToolCall // nil: a text answer
	}{
		"first tool":     {toolsBody(true, ""), []ToolCall{{ID: "call_sim0_0", Name: "get_weather", Arguments: `{"city":"sim","unit":"celsius"}`}}},
		"named":          {strings.Replace(toolsBody(true, ""), `"tools":`, named, 1), []ToolCall{{ID: "call_sim0_0", Name: "get_time", Arguments: `{"tz":"sim"}`}}},
		"choice none":    {strings.Replace(toolsBody(true, ""), `"tools":`, `"tool_choice":"none","tools":`, 1), nil},
		"after a result": {toolsBody(true, result), nil},
		"no tools":       {streamBody, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, url := Start(t, fast())
			w := streamTools(t, url, tc.body)
			tr := srv.Truth()[0]
			wantFinish := "tool_calls"
			if tc.want == nil {
				wantFinish = "stop"
			}
			if !slices.Equal(w.calls, tc.want) || !slices.Equal(tr.ToolCalls, tc.want) || tr.Finish != wantFinish {
				t.Errorf("wire %+v, truth %+v, finish %q; want %+v, %q", w.calls, tr.ToolCalls, tr.Finish, tc.want, wantFinish)
			}
			if tc.want == nil && tr.Answer == "" {
				t.Error("no text answer")
			}
		})
	}
}

// TestToolCuts: max_tokens cuts a call as it cuts text, a mid-stream
// fault leaves the calls sent so far, and a non-stream answer carries the
// calls in its message; the truth says each.
func TestToolCuts(t *testing.T) {
	calls := []ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`}}
	pieces := splitTokens(calls[0].Arguments)
	cases := map[string]struct {
		body, fault string
		finish      string
		args        string
		done        bool
	}{
		"max_tokens": {body: strings.Replace(toolsBody(true, ""), `"stream":true,`, `"stream":true,"max_tokens":3,`, 1),
			finish: "length", args: pieces[0] + pieces[1], done: true},
		"truncated": {body: toolsBody(true, ""), fault: FaultTruncated, args: strings.Join(pieces[:fewTokens-1], "")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, url := toolServer(t, fast(), [][]ToolCall{calls}, "")
			resp, err := post(t, http.DefaultClient, url, tc.body, tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := readSSE(t, resp.Body, "\n")
			resp.Body.Close()
			w, tr := readTools(t, evs), srv.Truth()[0]
			if w.finish != tc.finish || tr.Finish != tc.finish || !slices.Equal(w.calls, tr.ToolCalls) ||
				tr.ToolCalls[0].Arguments != tc.args || tr.ToolDone.IsZero() == tc.done {
				t.Errorf("wire finish %q, calls %+v; truth finish %q, calls %+v, done at %v; want %q, arguments %q",
					w.finish, w.calls, tr.Finish, tr.ToolCalls, tr.ToolDone, tc.finish, tc.args)
			}
		})
	}
	t.Run("not streamed", func(t *testing.T) {
		srv, url := toolServer(t, fast(), [][]ToolCall{calls}, "")
		resp, err := post(t, http.DefaultClient, url, toolsBody(false, ""), "")
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Choices []struct {
				Message struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
				FinishReason string `json:"finish_reason"`
			}
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(rawBody(t, resp, 1<<20)), &got); err != nil {
			t.Fatal(err)
		}
		tr := srv.Truth()[0]
		m := got.Choices[0].Message
		if m.Content != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != calls[0].Arguments ||
			m.ToolCalls[0].ID != tr.ToolCalls[0].ID || got.Choices[0].FinishReason != "tool_calls" ||
			got.Usage.CompletionTokens != 1+len(pieces) || tr.OutputTokens != 1+len(pieces) || tr.FirstTool.IsZero() {
			t.Errorf("message %+v, finish %q, usage %d; truth %+v", m, got.Choices[0].FinishReason, got.Usage.CompletionTokens, tr)
		}
	})
}

// TestToolRates: wrong and broken arguments come at their seeded rates,
// the truth flags exactly the calls that differ from the expectation, and
// a wrong call still parses with the same keys.
func TestToolRates(t *testing.T) {
	calls := []ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`}}
	cfg := fast()
	cfg.TTFT, cfg.TPOT, cfg.ToolWrongRate, cfg.ToolBadJSONRate = 0, 0, 0.3, 0.2
	srv, url := toolServer(t, cfg, [][]ToolCall{calls}, "")
	const n = 100
	for range n {
		streamTools(t, url, toolsBody(true, ""))
	}
	wrong, bad := 0, 0
	for _, tr := range srv.Truth() {
		args := tr.ToolCalls[0].Arguments
		var m map[string]any
		parses := json.Unmarshal([]byte(args), &m) == nil
		if (args == calls[0].Arguments) != (!tr.ToolWrong && !tr.ToolBadJSON) || parses == tr.ToolBadJSON {
			t.Errorf("request %d: arguments %s, wrong %v, bad JSON %v", tr.Index, args, tr.ToolWrong, tr.ToolBadJSON)
		}
		if tr.ToolWrong && !tr.ToolBadJSON && (len(m) != 2 || m["unit"] != "celsius" || m["city"] == "Paris") {
			t.Errorf("wrong arguments %s: want the city changed, the rest kept", args)
		}
		wrong += btoi(tr.ToolWrong)
		bad += btoi(tr.ToolBadJSON)
	}
	// Binomial bounds at about 4 standard deviations.
	if wrong < 12 || wrong > 48 || bad < 5 || bad > 36 {
		t.Errorf("%d wrong and %d broken of %d, want about 30 and 20", wrong, bad, n)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestWrongArguments(t *testing.T) {
	schema := map[string]any{"properties": map[string]any{
		"unit": map[string]any{"type": "string", "enum": []any{"celsius", "fahrenheit"}},
	}}
	cases := map[string]struct {
		args   string
		schema any
		want   string
	}{
		"string":         {`{"city":"Paris","unit":"celsius"}`, nil, `{"city":"wrong-Paris","unit":"celsius"}`},
		"enum":           {`{"unit":"celsius"}`, schema, `{"unit":"fahrenheit"}`},
		"enum wraps":     {`{"unit":"fahrenheit"}`, schema, `{"unit":"celsius"}`},
		"number":         {`{"days":3}`, nil, `{"days":4}`},
		"bool":           {`{"hourly":true}`, nil, `{"hourly":false}`},
		"nested":         {`{"where":{"lat":1,"lon":2}}`, nil, `{"where":{"lat":2,"lon":2}}`},
		"empty":          {`{}`, nil, `{"sim_wrong":true}`},
		"not an object":  {`[1]`, nil, `{"sim_wrong":true}`},
		"array shortens": {`{"ids":[1,2]}`, nil, `{"ids":[2]}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := wrongArguments(tc.args, tc.schema); got != tc.want {
				t.Errorf("wrongArguments(%s) = %s, want %s", tc.args, got, tc.want)
			}
		})
	}
}

// historyWords counts a request's prompt words as the simulator must:
// every message's content, and its tool calls' names and arguments.
func historyWords(t *testing.T, body string) int {
	t.Helper()
	var req struct {
		Messages []struct {
			Content   string
			ToolCalls []struct {
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		}
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range req.Messages {
		n += len(strings.Fields(m.Content))
		for _, tc := range m.ToolCalls {
			n += len(strings.Fields(tc.Function.Name)) + len(strings.Fields(tc.Function.Arguments))
		}
	}
	return n
}
