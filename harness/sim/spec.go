package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// specKeys are the keys ParseSpec accepts, in the order String writes them.
var specKeys = []string{
	"ttft", "prefill", "tpot", "tokens", "jitter", "ttft_jitter", "tpot_jitter",
	"slowdown", "scale", "slots", "slow_after", "slow_factor",
	"role", "empty", "keepalive", "nousage", "crlf", "reasoning", "nodone", "multiline", "echo",
	"fault", "wrong", "invalid_json",
	"tools", "tool_wrong", "tool_badjson", "cache",
	"metrics_lie", "metrics_foreign", "metrics_vanish", "metrics_hang", "metrics_series", "usage_off",
	"judge", "judge_noise", "judge_length_bias", "judge_prose",
	"root", "seed",
}

// ParseSpec reads a comma-separated spec such as
//
//	ttft=50ms,tpot=5ms,tokens=24,jitter=0.1,role,fault=rate_limited:0.1,seed=1
//
// on top of Default(). A flag key alone (role, empty, nousage, crlf, nodone,
// multiline, echo) means true; key=false turns it off. fault=kind:p may
// repeat; jitter sets both ttft_jitter and tpot_jitter. Unknown keys and bad
// values are errors that name the key, so a typo never silently runs a
// different endpoint.
//
// Agents, caches and server metrics (each off unless set, but a request
// that offers tools always gets tool calls):
//
//	tools=openai|vllm|whole|noindex|noindex_fragments  the tool-call framing (ToolFramings; default openai)
//	tool_wrong=p, tool_badjson=p   rates of calls with wrong, and with non-JSON, arguments
//	cache=N                        a prefix cache of N blocks of 16 tokens (0: none)
//	metrics_lie=f                  /metrics' TTFT histogram observes f × the TTFT
//	metrics_foreign=s              /metrics counts s extra requests per real one (0.2: 20%)
//	metrics_vanish=N[@family]      a family (default vllm:time_to_first_token_seconds) gone after N scrapes
//	metrics_hang=p                 the probability that a scrape sends nothing until the client leaves
//	metrics_series=N               N more series, of the gauge sim_extra_series
//	usage_off=N:p                  usage.completion_tokens off by N on a share p of requests
//	root=PATH                      the served model's path, vLLM's root in /v1/models (provenance: its digest)
//
// The simulator as a judge (judge.go), off unless set:
//
//	judge                 answer judge prompts (package judge) with verdicts
//	judge_noise=p         the probability that a verdict is flipped
//	judge_length_bias=b   score + b × (answer words / reference words − 1)
//	judge_prose=p         the probability that the judge answers prose, not JSON
func ParseSpec(spec string) (Config, error) {
	c := Default()
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, val, hasVal := strings.Cut(item, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if err := c.set(key, val, hasVal); err != nil {
			return Config{}, fmt.Errorf("%w: spec item %q: %v", ErrConfig, item, err)
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func (c *Config) set(key, val string, hasVal bool) error {
	var err error
	dur := func(d *time.Duration) { *d, err = time.ParseDuration(val) }
	num := func(f *float64) { *f, err = strconv.ParseFloat(val, 64) }
	integer := func(n *int) { *n, err = strconv.Atoi(val) }
	flag := func(b *bool) {
		*b = true
		if hasVal {
			*b, err = strconv.ParseBool(val)
		}
	}
	if !hasVal && knownKey(key) && !isFlag(key) {
		return fmt.Errorf("key %q needs a value (%s=...)", key, key)
	}
	switch key {
	case "ttft":
		dur(&c.TTFT)
	case "prefill":
		dur(&c.PrefillPerToken)
	case "tpot":
		dur(&c.TPOT)
	case "keepalive":
		dur(&c.KeepAlive)
	case "slow_after":
		dur(&c.SlowAfter)
	case "slow_factor":
		num(&c.SlowFactor)
	case "tokens":
		integer(&c.OutputTokens)
	case "reasoning":
		integer(&c.ReasoningTokens)
	case "slots":
		integer(&c.Slots)
	case "jitter":
		num(&c.TTFTJitter)
		c.TPOTJitter = c.TTFTJitter
	case "ttft_jitter":
		num(&c.TTFTJitter)
	case "tpot_jitter":
		num(&c.TPOTJitter)
	case "slowdown":
		num(&c.Slowdown)
	case "scale":
		num(&c.Scale)
	case "wrong":
		num(&c.WrongRate)
	case "invalid_json":
		num(&c.InvalidJSONRate)
	case "role":
		flag(&c.RoleChunk)
	case "empty":
		flag(&c.EmptyContent)
	case "nousage":
		flag(&c.NoUsage)
	case "crlf":
		flag(&c.CRLF)
	case "nodone":
		flag(&c.NoDone)
	case "multiline":
		flag(&c.MultiLine)
	case "echo":
		flag(&c.Echo)
	case "tools":
		c.ToolFraming = val
	case "tool_wrong":
		num(&c.ToolWrongRate)
	case "tool_badjson":
		num(&c.ToolBadJSONRate)
	case "cache":
		integer(&c.CacheBlocks)
	case "root":
		c.Root = val
	case "metrics_lie":
		num(&c.MetricsLie)
	case "metrics_foreign":
		num(&c.MetricsForeign)
	case "metrics_vanish":
		n, family, _ := strings.Cut(val, "@")
		c.MetricsVanishFamily = family
		c.MetricsVanish, err = strconv.Atoi(n)
	case "metrics_hang":
		num(&c.MetricsHang)
	case "metrics_series":
		integer(&c.MetricsSeries)
	case "usage_off":
		n, p, ok := strings.Cut(val, ":")
		if !ok {
			return fmt.Errorf("usage_off needs tokens:probability, e.g. usage_off=5:0.1")
		}
		if c.UsageOffTokens, err = strconv.Atoi(n); err == nil {
			c.UsageOffRate, err = strconv.ParseFloat(p, 64)
		}
	case "judge", "judge_noise", "judge_length_bias", "judge_prose":
		err = c.setJudge(key, val, hasVal)
	case "seed":
		c.Seed, err = strconv.ParseInt(val, 10, 64)
	case "fault":
		kind, p, ok := strings.Cut(val, ":")
		if !ok {
			return fmt.Errorf("fault needs kind:probability, e.g. fault=truncated:0.05")
		}
		if !isFault(kind) {
			return fmt.Errorf("unknown fault kind %q (allowed: %s)", kind, strings.Join(FaultKinds, ", "))
		}
		var f float64
		if f, err = strconv.ParseFloat(p, 64); err == nil {
			if c.Faults == nil {
				c.Faults = map[string]float64{}
			}
			c.Faults[kind] = f
		}
	default:
		return fmt.Errorf("unknown key %q (allowed: %s)", key, strings.Join(specKeys, ", "))
	}
	return err
}

func isFlag(key string) bool {
	switch key {
	case "role", "empty", "nousage", "crlf", "nodone", "multiline", "echo", "judge":
		return true
	}
	return false
}

func knownKey(key string) bool {
	for _, k := range specKeys {
		if k == key {
			return true
		}
	}
	return false
}

// String is the spec of c relative to Default(), so that
// ParseSpec(c.String()) gives back c (hooks excepted: functions have no spec).
func (c Config) String() string {
	d := Default()
	var out []string
	add := func(key, val string) { out = append(out, key+"="+val) }
	durs := []struct {
		key  string
		v, d time.Duration
	}{{"ttft", c.TTFT, d.TTFT}, {"prefill", c.PrefillPerToken, d.PrefillPerToken}, {"tpot", c.TPOT, d.TPOT}}
	for _, x := range durs {
		if x.v != x.d {
			add(x.key, x.v.String())
		}
	}
	if c.OutputTokens != d.OutputTokens {
		add("tokens", strconv.Itoa(c.OutputTokens))
	}
	ff := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch {
	case c.TTFTJitter == c.TPOTJitter && c.TTFTJitter != d.TTFTJitter:
		add("jitter", ff(c.TTFTJitter))
	case c.TTFTJitter != c.TPOTJitter:
		add("ttft_jitter", ff(c.TTFTJitter))
		add("tpot_jitter", ff(c.TPOTJitter))
	}
	if c.Slowdown != d.Slowdown {
		add("slowdown", ff(c.Slowdown))
	}
	if c.Scale != d.Scale {
		add("scale", ff(c.Scale))
	}
	if c.Slots != d.Slots {
		add("slots", strconv.Itoa(c.Slots))
	}
	if c.SlowAfter != d.SlowAfter {
		add("slow_after", c.SlowAfter.String())
	}
	if c.SlowFactor != d.SlowFactor {
		add("slow_factor", ff(c.SlowFactor))
	}
	flag := func(key string, v, dv bool) {
		switch {
		case v == dv:
		case v:
			out = append(out, key)
		default:
			add(key, "false")
		}
	}
	flag("role", c.RoleChunk, d.RoleChunk)
	flag("empty", c.EmptyContent, d.EmptyContent)
	if c.KeepAlive != d.KeepAlive {
		add("keepalive", c.KeepAlive.String())
	}
	flag("nousage", c.NoUsage, d.NoUsage)
	flag("crlf", c.CRLF, d.CRLF)
	if c.ReasoningTokens != d.ReasoningTokens {
		add("reasoning", strconv.Itoa(c.ReasoningTokens))
	}
	flag("nodone", c.NoDone, d.NoDone)
	flag("multiline", c.MultiLine, d.MultiLine)
	flag("echo", c.Echo, d.Echo)
	for _, kind := range FaultKinds {
		if p, ok := c.Faults[kind]; ok {
			add("fault", kind+":"+ff(p))
		}
	}
	if c.WrongRate != d.WrongRate {
		add("wrong", ff(c.WrongRate))
	}
	if c.InvalidJSONRate != d.InvalidJSONRate {
		add("invalid_json", ff(c.InvalidJSONRate))
	}
	out = append(out, c.agentSpec()...)
	out = append(out, c.judgeSpec()...)
	if c.Seed != d.Seed {
		add("seed", strconv.FormatInt(c.Seed, 10))
	}
	return strings.Join(out, ",")
}

// agentSpec is the spec of the tool, cache and metrics settings that
// differ from Default(), none of which it sets.
func (c Config) agentSpec() []string {
	var out []string
	ff := func(key string, f float64) {
		if f != 0 {
			out = append(out, key+"="+strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	if c.ToolFraming != "" {
		out = append(out, "tools="+c.ToolFraming)
	}
	ff("tool_wrong", c.ToolWrongRate)
	ff("tool_badjson", c.ToolBadJSONRate)
	if c.CacheBlocks != 0 {
		out = append(out, "cache="+strconv.Itoa(c.CacheBlocks))
	}
	ff("metrics_lie", c.MetricsLie)
	ff("metrics_foreign", c.MetricsForeign)
	if c.MetricsVanish != 0 || c.MetricsVanishFamily != "" {
		v := strconv.Itoa(c.MetricsVanish)
		if c.MetricsVanishFamily != "" {
			v += "@" + c.MetricsVanishFamily
		}
		out = append(out, "metrics_vanish="+v)
	}
	ff("metrics_hang", c.MetricsHang)
	if c.MetricsSeries != 0 {
		out = append(out, "metrics_series="+strconv.Itoa(c.MetricsSeries))
	}
	if c.UsageOffTokens != 0 || c.UsageOffRate != 0 {
		out = append(out, "usage_off="+strconv.Itoa(c.UsageOffTokens)+":"+strconv.FormatFloat(c.UsageOffRate, 'g', -1, 64))
	}
	if c.Root != "" {
		out = append(out, "root="+c.Root)
	}
	return out
}
