package config

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/stream"
)

// fixedAt is an output_tokens: {fixed: N} at key
// (scenarios.chat.output_tokens, or
// scenarios.chat.endpoints.prod.output_tokens), for the check of the
// endpoints it applies to.
type fixedAt struct {
	key  string
	node *yaml.Node
}

// outputTokens reads output_tokens: N (the answer's cap, as max_tokens) or
// output_tokens: {fixed: N} (every answer exactly N tokens: the end of
// sequence ignored, on servers that can be asked).
func (p *configParser) outputTokens(sc *Scenario, key string, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		sc.MaxTokens, sc.FixedTokens = p.count(v, key, 1, 1<<20), 0
		return
	}
	p.mapping(v, key, []string{"fixed"}, func(_ string, n *yaml.Node) {
		sc.FixedTokens = p.count(n, key+".fixed", 1, 1<<20)
		sc.MaxTokens = sc.FixedTokens
	})
	p.fixed = append(p.fixed, fixedAt{key, v})
}

// checkFixed refuses a fixed answer length on an endpoint whose server
// cannot be asked for one: it would answer as long as it likes, and the
// figures would be of lengths nobody asked for.
func (p *configParser) checkFixed(cfg *Config) {
	for _, f := range p.fixed {
		eps := cfg.Endpoints
		if _, rest, ok := strings.Cut(f.key, ".endpoints."); ok {
			ep, _, _ := strings.Cut(rest, ".")
			eps = nil
			for _, e := range cfg.Endpoints {
				if e.Name == ep {
					eps = append(eps, e)
				}
			}
		}
		for _, e := range eps {
			if a := e.API.Or(); a != stream.APIChat {
				p.errf(f.node, f.key+".fixed", "endpoint %s is api: %s, which has no parameter of a fixed answer length (allowed: api: chat; give output_tokens a cap)", e.Name, a)
				continue
			}
			if _, _, ok := e.Kind.FixedLength(); !ok && !e.Simulated {
				p.errf(f.node, f.key+".fixed", "endpoint %s is kind: %s, which cannot be asked for a fixed answer length (allowed: %s; set the endpoint's kind, or give output_tokens a cap)",
					e.Name, e.Kind, fixedKinds())
			}
		}
	}
}

func fixedKinds() string {
	var names []string
	for _, k := range stream.Kinds {
		if _, _, ok := k.FixedLength(); ok {
			names = append(names, string(k))
		}
	}
	return strings.Join(names, ", ")
}
