package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/stream"
)

// Judge is the SLA file's judge: block — the endpoint that judges answers
// under rubrics (package judge) and how: judge: {endpoint: grader}. The
// judge endpoint is one of endpoints:, and is not measured: it is taken
// out of Config.Endpoints, unless AllowSelf keeps it there too (a model
// judging its own answers favours them, so that is said outright).
type Judge struct {
	// Settings are what the session's judge runs with (the cache's file
	// defaults to judge-cache.jsonl beside the SLA file; cache: off caches
	// none).
	judge.Settings
	// AgreementMin is judge_agreement_min: the least Cohen's kappa with a
	// labelled fixture that llmsla judge calibrate accepts; nil: none.
	AgreementMin *float64
	// Where is the block's file:line, for errors found later.
	Where string
}

// The judge's defaults.
const (
	DefaultJudgeConcurrency = 4
	DefaultJudgeMaxTokens   = 256
	DefaultJudgeSeed        = 1
	// DefaultJudgeCache is the cache's file name, beside the SLA file.
	DefaultJudgeCache = "judge-cache.jsonl"
)

var judgeKeys = []string{"endpoint", "allow_self", "cache", "concurrency", "max_tokens", "seed", "judge_agreement_min"}

// judgeBlock is a judge: block as parsed, resolved once every endpoint is
// known (resolveJudge).
type judgeBlock struct {
	name string
	node *yaml.Node
	j    Judge
}

// judge parses the judge: block.
func (p *configParser) judge(cfg *Config, n *yaml.Node) *judgeBlock {
	b := &judgeBlock{node: n, j: Judge{Settings: judge.Settings{Concurrency: DefaultJudgeConcurrency, MaxTokens: DefaultJudgeMaxTokens, Seed: DefaultJudgeSeed,
		Cache: filepath.Join(filepath.Dir(cfg.Source), DefaultJudgeCache)}, Where: fmt.Sprintf("%s:%d: judge", p.file, n.Line)}}
	p.mapping(n, "judge", judgeKeys, func(k string, v *yaml.Node) {
		key := "judge." + k
		switch k {
		case "endpoint":
			b.name = p.str(v, key)
		case "allow_self":
			ok, err := strconv.ParseBool(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil {
				p.errf(v, key, "%q: want true or false", v.Value)
			}
			b.j.AllowSelf = ok
		case "cache":
			switch c := p.str(v, key); {
			case c == "off":
				b.j.Cache = ""
			case c == "":
				p.errf(v, key, "empty: name a file (relative to the SLA file's directory), or off")
			case filepath.IsAbs(c):
				b.j.Cache = c
			default:
				b.j.Cache = filepath.Join(filepath.Dir(cfg.Source), c)
			}
		case "concurrency":
			b.j.Concurrency = p.count(v, key, 1, 256)
		case "max_tokens":
			b.j.MaxTokens = p.count(v, key, 16, 1<<16)
		case "seed":
			b.j.Seed = p.count(v, key, 0, 1<<31-1)
		case "judge_agreement_min":
			f := p.num(v, key)
			if !(f >= -1 && f <= 1) {
				p.errf(v, key, "%v is not a kappa (want -1 to 1, e.g. 0.6)", f)
			}
			b.j.AgreementMin = &f
		}
	})
	if n.Kind == yaml.MappingNode && b.name == "" {
		p.errf(n, "judge.endpoint", "missing: name the endpoint (of endpoints:) that judges, e.g. judge: {endpoint: grader}")
	}
	return b
}

// resolveJudge finds the judge's endpoint among those of the file and
// takes it out of the measured ones (unless allow_self): a judge endpoint
// that does not exist, or that is the endpoint measured under another
// name (the same base URL and model), is an error here, before any
// request.
func (p *configParser) resolveJudge(cfg *Config, b *judgeBlock) {
	if b == nil || b.name == "" {
		return
	}
	at := b.node
	for i := 0; i+1 < len(b.node.Content); i += 2 {
		if b.node.Content[i].Value == "endpoint" {
			at = b.node.Content[i+1]
		}
	}
	i := slices.IndexFunc(cfg.Endpoints, func(e stream.Endpoint) bool { return e.Name == b.name })
	if i < 0 {
		p.errf(at, "judge.endpoint", "no endpoint named %q (have: %s)", b.name, strings.Join(cfg.EndpointNames(), ", "))
		return
	}
	b.j.Endpoint = cfg.Endpoints[i]
	if !b.j.AllowSelf {
		cfg.Endpoints = slices.Delete(slices.Clone(cfg.Endpoints), i, i+1)
		for _, ep := range cfg.Endpoints {
			if !ep.Simulated && ep.BaseURL == b.j.Endpoint.BaseURL && ep.Model == b.j.Endpoint.Model {
				p.errf(at, "judge.endpoint", "%s is the endpoint measured as %s (the same base_url and model): a model judging its own answers favours them; name another judge, or set judge: {allow_self: true}",
					b.name, ep.Name)
			}
		}
		if len(cfg.Endpoints) == 0 {
			p.errf(at, "judge.endpoint", "%s is the only endpoint: with it judging, none is left to measure (add one, or set judge: {allow_self: true} to measure it too)", b.name)
		}
	}
	cfg.Judge = &b.j
}

// checkJudgeSelected refuses LLMSLA_ENDPOINTS naming the judge, which is
// not measured unless allow_self.
func (c *Config) checkJudgeSelected(name string) error {
	if c.Judge != nil && name == c.Judge.Endpoint.Name && !c.Judge.AllowSelf {
		return fmt.Errorf("%s: endpoint %q is the judge (%s): it is not measured unless judge: {allow_self: true}", EnvEndpoints, name, c.Judge.Where)
	}
	return nil
}
