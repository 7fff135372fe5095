package sim_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/llmsla/llmsla/harness/sim"
)

func ExampleParseSpec() {
	cfg, err := sim.ParseSpec("ttft=50ms, tpot=5ms, fault=truncated:0.05, role=false")
	fmt.Println(cfg.TTFT, cfg.TPOT, cfg.Faults, cfg.RoleChunk, err)
	fmt.Println(cfg)

	_, err = sim.ParseSpec("tfft=50ms")
	fmt.Println(err)
	// Output:
	// 50ms 5ms map[truncated:0.05] false <nil>
	// ttft=50ms,tpot=5ms,role=false,fault=truncated:0.05
	// sim: bad config: spec item "tfft=50ms": unknown key "tfft" (allowed: ttft, prefill, tpot, tokens, jitter, ttft_jitter, tpot_jitter, slowdown, scale, slots, slow_after, slow_factor, role, empty, keepalive, nousage, crlf, reasoning, nodone, multiline, echo, fault, wrong, invalid_json, tools, tool_wrong, tool_badjson, cache, metrics_lie, metrics_foreign, metrics_vanish, metrics_hang, metrics_series, usage_off, swap, root, judge, judge_noise, judge_length_bias, judge_prose, seed)
}

func ExampleServer_Truth() {
	cfg := sim.Default()
	cfg.OutputTokens = 3
	srv := sim.New(cfg)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	body := `{"model":"m","stream":true,"stream_options":{"include_usage":true},` +
		`"messages":[{"role":"user","content":"Say three words."}]}`
	resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	tr := srv.Truth()[0]
	fmt.Printf("%s: %d prompt, %d output tokens, %q, finish %s\n",
		tr.ID, tr.PromptTokens, tr.OutputTokens, tr.Answer, tr.Finish)
	fmt.Println("first token after the headers:", tr.FirstToken.After(tr.Headers))
	// Output:
	// chatcmpl-sim-0: 3 prompt, 3 output tokens, "lorem ipsum dolor ", finish stop
	// first token after the headers: true
}
