package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseSpec reads a comma-separated spec such as
//
//	ttft=50ms,tpot=5ms,tokens=24,jitter=0.1,role,fault=rate_limited:0.1,seed=1
//
// on top of Default(). The keys are the rows of specTable, each with what
// it sets; docs/configuration.md documents every one of them
// (TestSpecKeysDocumented). A flag key alone (role, empty, nousage, crlf,
// nodone, multiline, echo, judge) means true; key=false turns it off.
// fault=kind:p may repeat; jitter sets both ttft_jitter and tpot_jitter;
// any judge_ key turns the judge on. Unknown keys and bad values are
// errors that name the key and what it takes, so a typo never silently
// runs a different endpoint.
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
	i := slices.IndexFunc(specTable, func(k specKey) bool { return k.key == key })
	switch {
	case i < 0:
		return fmt.Errorf("unknown key %q (allowed: %s)", key, strings.Join(specKeys(), ", "))
	case !hasVal && specTable[i].flag():
		val = "true"
	case !hasVal:
		k := specTable[i]
		return fmt.Errorf("key %q needs a value (%s=%s, e.g. %s=%s)", key, key, k.value, key, k.example)
	}
	return specTable[i].set(c, val)
}

// String is the spec of c relative to Default(), so that
// ParseSpec(c.String()) gives back c (hooks excepted: functions have no spec).
func (c Config) String() string { return strings.Join(c.spec(specTable), ",") }

// judgeSpec is the spec of the judge's settings, none of which Default sets.
func (c Config) judgeSpec() []string { return c.spec(judgeKeys) }

// spec is the items of c that keys write, in their order.
func (c Config) spec(keys []specKey) []string {
	d := Default()
	var out []string
	for _, k := range keys {
		if !k.shown(&c, &d) {
			continue
		}
		for _, v := range k.values(&c) {
			if v == "" {
				out = append(out, k.key)
			} else {
				out = append(out, k.key+"="+v)
			}
		}
	}
	return out
}

// A specKey is one key of a spec, defined once: ParseSpec reads it with
// set, String writes it with shown and values, errors list it and say what
// it takes, and docs/configuration.md documents it.
type specKey struct {
	key string
	// value is what the key takes, as errors say it (<duration>); "" for
	// a flag, which alone means true.
	value string
	// example is a value other than the default, for errors and tests;
	// "" for a flag, whose example is the key alone.
	example string
	doc     string // what it sets
	set     func(c *Config, val string) error
	// shown reports whether String writes the key for c, whose default
	// is d; values are what it writes, "" for a flag alone.
	shown  func(c, d *Config) bool
	values func(c *Config) []string
}

func (k specKey) flag() bool { return k.value == "" }

// eg is k with its example.
func (k specKey) eg(example string) specKey {
	k.example = example
	return k
}

// when is k written by String only where shown says.
func (k specKey) when(shown func(c, d *Config) bool) specKey {
	k.shown = shown
	return k
}

// also is k, doing then after setting its field.
func (k specKey) also(then func(c *Config)) specKey {
	set := k.set
	k.set = func(c *Config, v string) error {
		err := set(c, v)
		then(c)
		return err
	}
	return k
}

// judging is k, a judge_ key: setting it turns the judge on, and String
// writes it only for a judge that is on.
func (k specKey) judging() specKey {
	set, shown := k.set, k.shown
	k.set = func(c *Config, v string) error {
		c.Judge = true
		return set(c, v)
	}
	k.shown = func(c, d *Config) bool { return c.Judge && shown(c, d) }
	return k
}

// specTable is every key of a spec, in the order String writes them.
var specTable = []specKey{
	duration("ttft", "the base time to first token", func(c *Config) *time.Duration { return &c.TTFT }).eg("50ms"),
	duration("prefill", "the prefill per prompt token (a prompt token is a whitespace-separated word)", func(c *Config) *time.Duration { return &c.PrefillPerToken }).eg("1ms"),
	duration("tpot", "the time per output token", func(c *Config) *time.Duration { return &c.TPOT }).eg("5ms"),
	whole("tokens", "the answer's length in lorem words when the case gives none (capped by max_tokens)", func(c *Config) *int { return &c.OutputTokens }).eg("64"),
	number("jitter", "ttft_jitter and tpot_jitter both", func(c *Config) *float64 { return &c.TTFTJitter }).eg("0.2").
		also(func(c *Config) { c.TPOTJitter = c.TTFTJitter }).
		when(func(c, d *Config) bool { return c.TTFTJitter == c.TPOTJitter && c.TTFTJitter != d.TTFTJitter }),
	number("ttft_jitter", "the relative sd of the lognormal factor on the time to first token", func(c *Config) *float64 { return &c.TTFTJitter }).eg("0.2").when(splitJitter),
	number("tpot_jitter", "the relative sd of the lognormal factor on each token's time", func(c *Config) *float64 { return &c.TPOTJitter }).eg("0.3").when(splitJitter),
	number("slowdown", "every delay × (1 + slowdown × (in-flight − 1))", func(c *Config) *float64 { return &c.Slowdown }).eg("0.01"),
	number("scale", "TTFT and prefill × scale, to simulate a regression", func(c *Config) *float64 { return &c.Scale }).eg("1.25"),
	whole("slots", "at most this many requests generate at once, the rest queue in arrival order (0: unlimited)", func(c *Config) *int { return &c.Slots }).eg("4"),
	duration("slow_after", "drift: requests arriving this long after the first have TTFT and prefill × slow_factor", func(c *Config) *time.Duration { return &c.SlowAfter }).eg("30s"),
	number("slow_factor", "the drift's factor on TTFT and prefill (0: no drift)", func(c *Config) *float64 { return &c.SlowFactor }).eg("2"),
	toggle("role", "a role-only first chunk", func(c *Config) *bool { return &c.RoleChunk }).eg("false"),
	toggle("empty", "an empty content chunk after the headers", func(c *Config) *bool { return &c.EmptyContent }),
	duration("keepalive", "\": ping\" comments while waiting longer than this (0: never)", func(c *Config) *time.Duration { return &c.KeepAlive }).eg("10ms"),
	toggle("nousage", "no usage chunk, even when asked for", func(c *Config) *bool { return &c.NoUsage }),
	toggle("crlf", "CRLF line ends", func(c *Config) *bool { return &c.CRLF }),
	whole("reasoning", "reasoning tokens sent before the answer", func(c *Config) *int { return &c.ReasoningTokens }).eg("4"),
	toggle("nodone", "no data: [DONE] at the end", func(c *Config) *bool { return &c.NoDone }),
	toggle("multiline", "each chunk's JSON over several data: lines", func(c *Config) *bool { return &c.MultiLine }),
	toggle("echo", "answers that echo the request's secrets", func(c *Config) *bool { return &c.Echo }),
	{key: "fault", value: "<kind:probability>", example: "truncated:0.05", doc: "repeatable: each request fails with that fault kind (FaultKinds) with that probability",
		set: setFault, shown: func(c, _ *Config) bool { return len(faultValues(c)) > 0 }, values: faultValues},
	number("wrong", "the fraction of answers that are wrong", func(c *Config) *float64 { return &c.WrongRate }).eg("0.2"),
	number("invalid_json", "the fraction of answers that are invalid JSON", func(c *Config) *float64 { return &c.InvalidJSONRate }).eg("0.1"),
	text("tools", "<"+strings.Join(ToolFramings, "|")+">", "the tool-call framing (default openai)", func(c *Config) *string { return &c.ToolFraming }).eg("vllm"),
	number("tool_wrong", "the rate of tool calls with wrong (still valid JSON) arguments", func(c *Config) *float64 { return &c.ToolWrongRate }).eg("0.1"),
	number("tool_badjson", "the rate of tool calls whose arguments are not JSON", func(c *Config) *float64 { return &c.ToolBadJSONRate }).eg("0.05"),
	whole("cache", "a prefix cache of this many blocks of 16 tokens (0: none)", func(c *Config) *int { return &c.CacheBlocks }).eg("4096"),
	number("metrics_lie", "/metrics' TTFT histogram observes this factor × the TTFT", func(c *Config) *float64 { return &c.MetricsLie }).eg("2"),
	number("metrics_foreign", "/metrics counts this many extra requests per real one (0.2: 20%)", func(c *Config) *float64 { return &c.MetricsForeign }).eg("0.2"),
	{key: "metrics_vanish", value: "<N[@family]>", example: "3@vllm:kv_cache_usage_perc", doc: "a family (default vllm:time_to_first_token_seconds) gone after N scrapes",
		set: func(c *Config, v string) (err error) {
			n, family, _ := strings.Cut(v, "@")
			c.MetricsVanishFamily = family
			c.MetricsVanish, err = strconv.Atoi(n)
			return want("metrics_vanish", "<N[@family]>", err)
		},
		shown: func(c, _ *Config) bool { return c.MetricsVanish != 0 || c.MetricsVanishFamily != "" },
		values: func(c *Config) []string {
			v := strconv.Itoa(c.MetricsVanish)
			if c.MetricsVanishFamily != "" {
				v += "@" + c.MetricsVanishFamily
			}
			return []string{v}
		}},
	number("metrics_hang", "the probability that a scrape sends nothing until the client leaves", func(c *Config) *float64 { return &c.MetricsHang }).eg("0.1"),
	whole("metrics_series", "this many more series, of the gauge sim_extra_series", func(c *Config) *int { return &c.MetricsSeries }).eg("100"),
	{key: "usage_off", value: "<tokens:probability>", example: "5:0.1", doc: "usage.completion_tokens off by N on a share p of requests",
		set: func(c *Config, v string) (err error) {
			n, p, ok := strings.Cut(v, ":")
			if !ok {
				return fmt.Errorf("usage_off needs tokens:probability, e.g. usage_off=5:0.1")
			}
			if c.UsageOffTokens, err = strconv.Atoi(n); err == nil {
				c.UsageOffRate, err = strconv.ParseFloat(p, 64)
			}
			return want("usage_off", "<tokens:probability>", err)
		},
		shown: func(c, _ *Config) bool { return c.UsageOffTokens != 0 || c.UsageOffRate != 0 },
		values: func(c *Config) []string {
			return []string{strconv.Itoa(c.UsageOffTokens) + ":" + formatFloat(c.UsageOffRate)}
		}},
	{key: "swap", value: "<requests:model>", example: "5:m-b", doc: "from request N on (counted from 0), the responses name another model: a deploy mid-run",
		set: func(c *Config, v string) (err error) {
			n, m, ok := strings.Cut(v, ":")
			if !ok || m == "" {
				return fmt.Errorf("swap needs requests:model, e.g. swap=5:m-b")
			}
			c.SwapModel = m
			if c.SwapAfter, err = strconv.Atoi(n); err == nil && c.SwapAfter < 0 {
				err = fmt.Errorf("%d requests: want ≥ 0", c.SwapAfter)
			}
			return want("swap", "<requests:model>", err)
		},
		shown:  func(c, _ *Config) bool { return c.SwapModel != "" },
		values: func(c *Config) []string { return []string{strconv.Itoa(c.SwapAfter) + ":" + c.SwapModel} }},
	text("root", "<path>", "the served model's path, vLLM's root in /v1/models (provenance: its digest)", func(c *Config) *string { return &c.Root }).eg("/models/llama-3.1-8b"),
	toggle("judge", "answer judge prompts (package judge) with verdicts", func(c *Config) *bool { return &c.Judge }),
	number("judge_noise", "the probability that a verdict is flipped", func(c *Config) *float64 { return &c.JudgeNoise }).eg("0.1").judging(),
	number("judge_length_bias", "score + b × (answer words / reference words − 1)", func(c *Config) *float64 { return &c.JudgeLengthBias }).eg("1").judging(),
	number("judge_prose", "the probability that the judge answers prose, not JSON", func(c *Config) *float64 { return &c.JudgeProse }).eg("0.2").judging(),
	field("seed", "<integer>", "decides faults and wrong answers per request index, so a run repeats exactly", func(c *Config) *int64 { return &c.Seed },
		func(v string) (int64, error) { return strconv.ParseInt(v, 10, 64) }, func(n int64) string { return strconv.FormatInt(n, 10) }).eg("7"),
}

// judgeKeys are the keys of the simulator as a judge (judge.go).
var judgeKeys = slices.DeleteFunc(slices.Clone(specTable), func(k specKey) bool {
	return k.key != "judge" && !strings.HasPrefix(k.key, "judge_")
})

// specKeys are the keys' names, in specTable's order.
func specKeys() []string {
	out := make([]string, len(specTable))
	for i, k := range specTable {
		out[i] = k.key
	}
	return out
}

// splitJitter: String writes ttft_jitter and tpot_jitter when they differ
// (and jitter when they do not).
func splitJitter(c, _ *Config) bool { return c.TTFTJitter != c.TPOTJitter }

// field is a key of one Config field of type T, written when it differs
// from the default, through parse and format.
func field[T comparable](key, value, doc string, at func(*Config) *T, parse func(string) (T, error), format func(T) string) specKey {
	return specKey{key: key, value: value, doc: doc,
		set: func(c *Config, v string) (err error) {
			*at(c), err = parse(v)
			return want(key, value, err)
		},
		shown:  func(c, d *Config) bool { return *at(c) != *at(d) },
		values: func(c *Config) []string { return []string{format(*at(c))} }}
}

func duration(key, doc string, at func(*Config) *time.Duration) specKey {
	return field(key, "<duration>", doc, at, time.ParseDuration, time.Duration.String)
}

func number(key, doc string, at func(*Config) *float64) specKey {
	return field(key, "<number>", doc, at, func(v string) (float64, error) { return strconv.ParseFloat(v, 64) }, formatFloat)
}

func whole(key, doc string, at func(*Config) *int) specKey {
	return field(key, "<integer>", doc, at, strconv.Atoi, strconv.Itoa)
}

func text(key, value, doc string, at func(*Config) *string) specKey {
	return field(key, value, doc, at, func(v string) (string, error) { return v, nil }, func(v string) string { return v })
}

// toggle is a key that alone means true: String writes it alone when true,
// as key=false when false (and the default true).
func toggle(key, doc string, at func(*Config) *bool) specKey {
	return field(key, "", doc, at, strconv.ParseBool, func(b bool) string {
		if b {
			return ""
		}
		return "false"
	})
}

// want is err, a value that did not parse, with what the key takes.
func want(key, value string, err error) error {
	switch {
	case err == nil:
		return nil
	case value == "":
		return fmt.Errorf("%v (want %s, or %s=false)", err, key, key)
	}
	return fmt.Errorf("%v (want %s=%s)", err, key, value)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// setFault reads fault=kind:p.
func setFault(c *Config, v string) error {
	kind, p, ok := strings.Cut(v, ":")
	if !ok {
		return fmt.Errorf("fault needs kind:probability, e.g. fault=truncated:0.05")
	}
	if !isFault(kind) {
		return fmt.Errorf("unknown fault kind %q (allowed: %s)", kind, strings.Join(FaultKinds, ", "))
	}
	f, err := strconv.ParseFloat(p, 64)
	if err == nil {
		if c.Faults == nil {
			c.Faults = map[string]float64{}
		}
		c.Faults[kind] = f
	}
	return want("fault", "<kind:probability>", err)
}

// faultValues are c's faults as String writes them, in FaultKinds' order.
func faultValues(c *Config) []string {
	var out []string
	for _, kind := range FaultKinds {
		if p, ok := c.Faults[kind]; ok {
			out = append(out, kind+":"+formatFloat(p))
		}
	}
	return out
}
