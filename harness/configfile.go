package harness

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// configError is an error in the SLA file, placed by file, line and key.
type configError struct {
	file string
	line int
	key  string
	msg  string
}

func (e *configError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.file, e.line, e.key, e.msg)
}

// configParser walks the YAML tree so that each error can name its line and
// its full key; unknown keys are errors, not silently ignored.
type configParser struct {
	file string
	errs []error
}

func (p *configParser) errf(n *yaml.Node, key, format string, args ...any) {
	p.errs = append(p.errs, &configError{p.file, n.Line, key, fmt.Sprintf(format, args...)})
}

// mapping calls fn for each key of a mapping node, rejecting keys not in
// allowed (nil allows any).
func (p *configParser) mapping(n *yaml.Node, key string, allowed []string, fn func(k string, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.errf(n, key, "want a mapping of keys to values")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		full := strings.TrimPrefix(key+"."+k, ".")
		if allowed != nil && !slices.Contains(allowed, k) {
			p.errf(n.Content[i], full, "unknown key (allowed: %s)", strings.Join(allowed, ", "))
			continue
		}
		fn(k, v)
	}
}

func (p *configParser) str(n *yaml.Node, key string) string {
	if n.Kind != yaml.ScalarNode {
		p.errf(n, key, "want a string")
		return ""
	}
	return n.Value
}

func (p *configParser) num(n *yaml.Node, key string) float64 {
	f, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		p.errf(n, key, "%q is not a number", n.Value)
	}
	return f
}

func (p *configParser) count(n *yaml.Node, key string, min int) int {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < min {
		p.errf(n, key, "%q is not a whole number ≥ %d", n.Value, min)
	}
	return v
}

// LoadConfigFile reads and validates an SLA file.
func LoadConfigFile(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg := &Config{Source: path, Scenarios: DefaultScenarios(), PerEndpoint: map[string]map[string]ScenarioConfig{}, SimSpecs: map[string]string{}}
	p := &configParser{file: path}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty file: want at least an endpoints: section", path)
	}
	p.mapping(doc.Content[0], "", []string{"endpoints", "scenarios", "gate"}, func(k string, v *yaml.Node) {
		switch k {
		case "endpoints":
			p.mapping(v, "endpoints", nil, func(name string, v *yaml.Node) {
				cfg.Endpoints = append(cfg.Endpoints, p.endpoint(cfg, name, v))
			})
		case "scenarios":
			p.mapping(v, "scenarios", nil, func(name string, v *yaml.Node) {
				p.scenario(cfg, name, v)
			})
		case "gate":
			p.gate(cfg, v)
		}
	})
	if len(cfg.Endpoints) == 0 && len(p.errs) == 0 {
		p.errf(doc.Content[0], "endpoints", "no endpoint defined")
	}
	for scenario, per := range cfg.PerEndpoint {
		for ep := range per {
			if !slices.Contains(cfg.EndpointNames(), ep) {
				p.errs = append(p.errs, &configError{path, 0, "scenarios." + scenario + ".endpoints." + ep,
					fmt.Sprintf("no endpoint named %q (have: %s)", ep, strings.Join(cfg.EndpointNames(), ", "))})
			}
		}
	}
	if len(p.errs) > 0 {
		return nil, joinErrors(p.errs)
	}
	return cfg, nil
}

var endpointKeys = []string{"base_url", "model", "api_key_env", "headers", "timeouts", "kind", "max_tokens_param", "sim"}

func (p *configParser) endpoint(cfg *Config, name string, n *yaml.Node) Endpoint {
	key := "endpoints." + name
	ep := Endpoint{Name: name, Timeouts: DefaultTimeouts, Kind: "openai"}
	isSim := false
	p.mapping(n, key, endpointKeys, func(k string, v *yaml.Node) {
		k2 := key + "." + k
		switch k {
		case "base_url":
			ep.BaseURL = p.str(v, k2)
			if err := checkURL(ep.BaseURL); err != nil {
				p.errf(v, k2, "%v", err)
			}
		case "model":
			ep.Model = p.str(v, k2)
		case "api_key_env":
			ep.KeyEnv = p.str(v, k2)
		case "headers":
			ep.Headers = map[string]string{}
			p.mapping(v, k2, nil, func(h string, v *yaml.Node) {
				if strings.EqualFold(h, "authorization") {
					p.errf(v, k2+"."+h, "put the key in the environment and name it with api_key_env, not in the file")
				}
				ep.Headers[h] = p.str(v, k2+"."+h)
			})
		case "timeouts":
			p.mapping(v, k2, []string{"headers", "idle", "total"}, func(t string, v *yaml.Node) {
				d, err := parseDuration(v.Value)
				if err != nil {
					p.errf(v, k2+"."+t, "%v", err)
				}
				switch t {
				case "headers":
					ep.Timeouts.Headers = d
				case "idle":
					ep.Timeouts.Idle = d
				case "total":
					ep.Timeouts.Total = d
				}
			})
		case "kind":
			ep.Kind = p.str(v, k2)
			if ep.Kind != "openai" && ep.Kind != "ollama" {
				p.errf(v, k2, "%q is not a kind (allowed: openai, ollama)", ep.Kind)
			}
		case "max_tokens_param":
			ep.MaxTokensParam = p.str(v, k2)
			if ep.MaxTokensParam != MaxTokens && ep.MaxTokensParam != MaxCompletionTokens {
				p.errf(v, k2, "%q is not a parameter (allowed: %s, %s)", ep.MaxTokensParam, MaxTokens, MaxCompletionTokens)
			}
		case "sim":
			isSim = true
			spec := p.str(v, k2)
			if err := validSimSpec(spec); err != nil {
				p.errf(v, k2, "%v", err)
			}
			cfg.SimSpecs[name] = spec
		}
	})
	switch {
	case isSim && ep.BaseURL != "":
		p.errf(n, key, "set either base_url or sim, not both")
	case isSim:
		ep.Simulated = true
		if ep.Model == "" {
			ep.Model = "sim"
		}
	case ep.BaseURL == "":
		p.errf(n, key+".base_url", "missing (e.g. https://api.openai.com/v1, or sim: \"\" for the built-in simulator)")
	case ep.Model == "":
		p.errf(n, key+".model", "missing: name the model to ask")
	}
	return ep
}

var scenarioKeys = []string{"samples", "concurrency", "warmup", "max_tokens", "sla", "endpoints"}

func (p *configParser) scenario(cfg *Config, name string, n *yaml.Node) {
	key := "scenarios." + name
	base, ok := cfg.Scenarios[name]
	if !ok {
		base = ScenarioConfig{Samples: 20, Concurrency: []int{1}, Warmup: 2}
	}
	var per *yaml.Node
	sc := p.scenarioSettings(base, key, n, scenarioKeys, func(v *yaml.Node) { per = v })
	cfg.Scenarios[name] = sc
	if per == nil {
		return
	}
	cfg.PerEndpoint[name] = map[string]ScenarioConfig{}
	p.mapping(per, key+".endpoints", nil, func(ep string, v *yaml.Node) {
		cfg.PerEndpoint[name][ep] = p.scenarioSettings(sc, key+".endpoints."+ep, v, scenarioKeys[:5], nil)
	})
}

// scenarioSettings applies the keys of n on top of base.
func (p *configParser) scenarioSettings(base ScenarioConfig, key string, n *yaml.Node, allowed []string, endpoints func(*yaml.Node)) ScenarioConfig {
	sc := base
	sc.Concurrency = slices.Clone(base.Concurrency)
	sc.SLA = slices.Clone(base.SLA)
	p.mapping(n, key, allowed, func(k string, v *yaml.Node) {
		k2 := key + "." + k
		switch k {
		case "samples":
			sc.Samples = p.count(v, k2, 1)
		case "warmup":
			sc.Warmup = p.count(v, k2, 0)
		case "max_tokens":
			sc.MaxTokens = p.count(v, k2, 1)
		case "concurrency":
			sc.Concurrency = nil
			if v.Kind == yaml.ScalarNode {
				sc.Concurrency = append(sc.Concurrency, p.count(v, k2, 1))
				return
			}
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				p.errf(v, k2, "want a level or a list of levels, e.g. [1, 5, 10]")
				return
			}
			for _, c := range v.Content {
				sc.Concurrency = append(sc.Concurrency, p.count(c, k2, 1))
			}
		case "sla":
			p.mapping(v, k2, nil, func(m string, v *yaml.Node) {
				th, err := ParseThreshold(m, p.num(v, k2+"."+m))
				if err != nil {
					p.errf(v, k2+"."+m, "%s", strings.TrimPrefix(err.Error(), m+": "))
					return
				}
				sc.SLA = slices.DeleteFunc(sc.SLA, func(t Threshold) bool { return t.Key == m })
				sc.SLA = append(sc.SLA, th)
			})
		case "endpoints":
			endpoints(v)
		}
	})
	return sc
}

func (p *configParser) gate(cfg *Config, n *yaml.Node) {
	cfg.Gate.Tolerance = map[string]string{}
	p.mapping(n, "gate", []string{"alpha", "tolerance"}, func(k string, v *yaml.Node) {
		switch k {
		case "alpha":
			cfg.Gate.Alpha = p.num(v, "gate.alpha")
			if cfg.Gate.Alpha <= 0 || cfg.Gate.Alpha >= 0.5 {
				p.errf(v, "gate.alpha", "%v is not a significance level (want 0 < alpha < 0.5, e.g. 0.05)", cfg.Gate.Alpha)
			}
		case "tolerance":
			p.mapping(v, "gate.tolerance", nil, func(unit string, v *yaml.Node) {
				s := p.str(v, "gate.tolerance."+unit)
				if _, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64); err != nil {
					p.errf(v, "gate.tolerance."+unit, "%q is not a tolerance (e.g. 10%% relative, or 1 absolute)", s)
				}
				cfg.Gate.Tolerance[unit] = s
			})
		}
	})
}

// joinErrors joins config errors one per line.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("%d errors in the configuration:\n  %s", len(errs), strings.Join(msgs, "\n  "))
}
