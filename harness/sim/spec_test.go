package sim

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	cases := map[string]struct {
		spec string
		want func(*Config)
	}{
		"empty is default": {"", func(*Config) {}},
		"the brief's example": {
			"ttft=50ms,tpot=5ms,tokens=24,jitter=0.1,slowdown=0.01,scale=1.25,role,keepalive=10ms," +
				"crlf,reasoning=4,nousage,fault=rate_limited:0.1,fault=truncated:0.05,seed=1",
			func(c *Config) {
				c.TTFT, c.TPOT, c.OutputTokens = 50*time.Millisecond, 5*time.Millisecond, 24
				c.TTFTJitter, c.TPOTJitter, c.Slowdown, c.Scale = 0.1, 0.1, 0.01, 1.25
				c.RoleChunk, c.KeepAlive, c.CRLF, c.ReasoningTokens, c.NoUsage = true, 10*time.Millisecond, true, 4, true
				c.Faults = map[string]float64{FaultRateLimited: 0.1, FaultTruncated: 0.05}
				c.Seed = 1
			}},
		"flags off and split jitter": {
			" role=false , empty, nodone=true, ttft_jitter=0, tpot_jitter=0.3, prefill=1ms ",
			func(c *Config) {
				c.RoleChunk, c.EmptyContent, c.NoDone = false, true, true
				c.TTFTJitter, c.TPOTJitter, c.PrefillPerToken = 0, 0.3, time.Millisecond
			}},
		"quality": {"wrong=0.2,invalid_json=0.1,seed=-3", func(c *Config) {
			c.WrongRate, c.InvalidJSONRate, c.Seed = 0.2, 0.1, -3
		}},
		"hostile framing": {"multiline,echo,fault=flood:0.1,fault=gzip_unasked:0.2,fault=echo_error:0.05", func(c *Config) {
			c.MultiLine, c.Echo = true, true
			c.Faults = map[string]float64{FaultFlood: 0.1, FaultGzipUnasked: 0.2, FaultEchoError: 0.05}
		}},
		"capacity and drift": {"slots=4,slow_after=30s,slow_factor=2.5", func(c *Config) {
			c.Slots, c.SlowAfter, c.SlowFactor = 4, 30*time.Second, 2.5
		}},
		"tools, cache and metrics": {"tools=vllm,tool_wrong=0.1,tool_badjson=0.05,cache=4096," +
			"metrics_lie=2,metrics_foreign=0.2,metrics_vanish=3@vllm:kv_cache_usage_perc,metrics_hang=1,metrics_series=100000",
			func(c *Config) {
				c.ToolFraming, c.ToolWrongRate, c.ToolBadJSONRate, c.CacheBlocks = ToolsVLLM, 0.1, 0.05, 4096
				c.MetricsLie, c.MetricsForeign, c.MetricsVanish, c.MetricsVanishFamily = 2, 0.2, 3, MetricKVUsage
				c.MetricsHang, c.MetricsSeries = 1, 100000
			}},
		"usage off": {"usage_off=-5:0.1", func(c *Config) { c.UsageOffTokens, c.UsageOffRate = -5, 0.1 }},
		"vanish, the default family": {"metrics_vanish=1,tools=noindex_fragments", func(c *Config) {
			c.MetricsVanish, c.ToolFraming = 1, ToolsNoIndexFragments
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseSpec(%q) =\n%+v\nwant\n%+v", tc.spec, got, want)
			}
			again, err := ParseSpec(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("round trip through %q = %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	cases := map[string]struct {
		spec string
		says []string // substrings the message must have
	}{
		"unknown key":          {"ttft=5ms,tfft=5ms", []string{`"tfft"`, "allowed:", "ttft", "tpot", "fault"}},
		"bad duration":         {"ttft=fast", []string{`"ttft=fast"`, "invalid duration", "want ttft=<duration>"}},
		"value missing":        {"tpot", []string{`"tpot"`, "needs a value", "tpot=<duration>, e.g. tpot=5ms"}},
		"bad flag":             {"role=maybe", []string{`"role=maybe"`, "want role, or role=false"}},
		"bad number":           {"scale=big", []string{`"scale=big"`, "want scale=<number>"}},
		"framings listed":      {"tools", []string{"tools=<openai|vllm|whole|noindex|noindex_fragments>"}},
		"unknown fault":        {"fault=gremlins:0.1", []string{`"gremlins"`, "truncated"}},
		"fault without p":      {"fault=truncated", []string{"kind:probability"}},
		"fault p > 1":          {"fault=auth:2", []string{"auth", "[0,1]"}},
		"faults sum > 1":       {"fault=auth:0.6,fault=truncated:0.6", []string{"sum"}},
		"negative tokens":      {"tokens=-1", []string{"tokens=-1"}},
		"negative ttft":        {"ttft=-1ms", []string{"ttft=-1ms"}},
		"rate out of bounds":   {"wrong=1.5", []string{"wrong=1.5"}},
		"negative slots":       {"slots=-1", []string{"slots=-1"}},
		"drift without factor": {"slow_after=30s", []string{"slow_after=30s", "slow_factor"}},
		"negative drift":       {"slow_factor=-2", []string{"slow_factor=-2"}},
		"unknown framing":      {"tools=grpc", []string{`tools="grpc"`, "allowed", "openai", "vllm", "whole", "noindex_fragments"}},
		"framing missing":      {"tools", []string{`"tools"`, "needs a value"}},
		"tool rate":            {"tool_wrong=1.5", []string{"tool_wrong=1.5", "[0,1]"}},
		"broken-JSON rate":     {"tool_badjson=-0.1", []string{"tool_badjson=-0.1", "[0,1]"}},
		"negative cache":       {"cache=-1", []string{"cache=-1", "blocks of 16 tokens", "0 (no prefix cache)"}},
		"cache too large":      {"cache=99999999", []string{"cache=99999999", "4194304"}},
		"cache not a number":   {"cache=lots", []string{`"cache=lots"`, "invalid syntax"}},
		"lie negative":         {"metrics_lie=-2", []string{"metrics_lie=-2", "factor"}},
		"foreign negative":     {"metrics_foreign=-0.2", []string{"metrics_foreign=-0.2", "from 0 to 100"}},
		"vanish negative":      {"metrics_vanish=-1", []string{"metrics_vanish=-1", ">= 1"}},
		"vanish unknown":       {"metrics_vanish=2@vllm:nope", []string{"metrics_vanish=2@vllm:nope", "vllm:num_requests_waiting", "vllm:time_to_first_token_seconds"}},
		"vanish without count": {"metrics_vanish=0@vllm:num_requests_waiting", []string{"metrics_vanish=0@", "count >= 1"}},
		"vanish not a number":  {"metrics_vanish=soon", []string{`"metrics_vanish=soon"`}},
		"hang rate":            {"metrics_hang=2", []string{"metrics_hang=2", "[0,1]"}},
		"too many series":      {"metrics_series=2000000", []string{"metrics_series=2000000", "1000000"}},
		"usage off without p":  {"usage_off=5", []string{"tokens:probability"}},
		"usage off p > 1":      {"usage_off=5:2", []string{"usage_off=5:2", "(0,1]"}},
		"usage off by nothing": {"usage_off=0:0.5", []string{"usage_off=0:0.5", "not 0"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseSpec(tc.spec)
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("ParseSpec(%q) error = %v, want ErrConfig", tc.spec, err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestSplitTokens(t *testing.T) {
	cases := map[string]struct {
		in   string
		want []string
	}{
		"words":        {"a bb  c", []string{"a ", "bb  ", "c"}},
		"leading":      {" a", []string{" a"}},
		"long word":    {"abcdefghijk", []string{"abcdefgh", "ijk"}},
		"runes intact": {"ééééééééé x", []string{"éééééééé", "é ", "x"}},
		"empty":        {"", nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := splitTokens(tc.in)
			if !reflect.DeepEqual(got, tc.want) || strings.Join(got, "") != tc.in {
				t.Errorf("splitTokens(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestRootServed: root= is the served model's path in /v1/models (vLLM's
// root), written back by String, and /version answers as vLLM's does.
func TestRootServed(t *testing.T) {
	c, err := ParseSpec("ttft=1ms,root=/models/llama-3.1-8b-q4")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.String(), "root=/models/llama-3.1-8b-q4") {
		t.Errorf("String() = %q: root lost", c.String())
	}
	srv := New(c)
	for path, want := range map[string]string{"/v1/models": `"root":"/models/llama-3.1-8b-q4"`, "/version": `{"version":"llmsla-sim"}`} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET %s: %d %s, want %s", path, rec.Code, rec.Body, want)
		}
	}
}

// TestSpecString: String writes every key in specTable's order, each
// only where it differs from Default(). The text is a judge cache's key
// (JudgeDigest) and what reports show, so it must not change for a spec
// that parses today.
func TestSpecString(t *testing.T) {
	cases := map[string]struct{ spec, want, digest string }{
		"every key": {
			"seed=-7,judge_prose=0.05,judge_length_bias=-2,judge_noise=0.1,root=/models/x,usage_off=-5:0.1,metrics_series=10," +
				"metrics_hang=0.5,metrics_vanish=3@vllm:kv_cache_usage_perc,metrics_foreign=0.2,metrics_lie=2,cache=4096,tool_badjson=0.05," +
				"tool_wrong=0.1,tools=vllm,invalid_json=0.1,wrong=0.2,fault=truncated:0.05,fault=rate_limited:0.1,echo,multiline,nodone," +
				"reasoning=4,crlf,nousage,keepalive=10ms,empty,role=false,slow_factor=2,slow_after=30s,slots=4,scale=1.25,slowdown=0.01," +
				"tpot_jitter=0.3,ttft_jitter=0.2,tokens=64,tpot=5ms,prefill=1ms,ttft=50ms",
			"ttft=50ms,prefill=1ms,tpot=5ms,tokens=64,ttft_jitter=0.2,tpot_jitter=0.3,slowdown=0.01,scale=1.25,slots=4,slow_after=30s," +
				"slow_factor=2,role=false,empty,keepalive=10ms,nousage,crlf,reasoning=4,nodone,multiline,echo,fault=rate_limited:0.1," +
				"fault=truncated:0.05,wrong=0.2,invalid_json=0.1,tools=vllm,tool_wrong=0.1,tool_badjson=0.05,cache=4096,metrics_lie=2," +
				"metrics_foreign=0.2,metrics_vanish=3@vllm:kv_cache_usage_perc,metrics_hang=0.5,metrics_series=10,usage_off=-5:0.1," +
				"root=/models/x,judge,judge_noise=0.1,judge_length_bias=-2,judge_prose=0.05,seed=-7",
			"sim-judge:judge,judge_noise=0.1,judge_length_bias=-2,judge_prose=0.05,seed=-7"},
		"one jitter, the judge alone": {"judge,jitter=0.3", "jitter=0.3,judge", "sim-judge:judge,seed=1"},
		"defaults written out":        {"ttft=20ms,tpot=2ms,jitter=0.1,tokens=24,role,seed=1", "", "sim-judge:,seed=1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := ParseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
			if got := c.JudgeDigest(); got != tc.digest {
				t.Errorf("JudgeDigest() = %s, want %s", got, tc.digest)
			}
		})
	}
}

// TestSpecKeysRoundTrip: every row of specTable reads its example, a
// value other than the default, and String writes it back as it was read
// (on top of slow_factor=3, which slow_after needs).
func TestSpecKeysRoundTrip(t *testing.T) {
	for _, k := range specTable {
		t.Run(k.key, func(t *testing.T) {
			item := k.key
			switch {
			case k.example != "":
				item += "=" + k.example
			case !k.flag():
				t.Fatalf("%s takes %s but has no example", k.key, k.value)
			}
			c, err := ParseSpec("slow_factor=3," + item)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(strings.Split(c.String(), ","), item) {
				t.Errorf("ParseSpec(%q).String() = %q: %s is not written back", item, c.String(), item)
			}
			if back, err := ParseSpec(c.String()); err != nil || !reflect.DeepEqual(back, c) {
				t.Errorf("%q read back as %+v (%v), want %+v", c.String(), back, err, c)
			}
		})
	}
}
