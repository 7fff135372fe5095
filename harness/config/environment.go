package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/llmsla/llmsla/harness/stream"
	"gopkg.in/yaml.v3"
)

// endpointsFrom gives a file without endpoints: the environment's endpoint
// (OPENAI_BASE_URL, LLMSLA_MODEL) or the built-in simulator, so that the
// objectives can live in the repository and the endpoint come from CI. A
// file with endpoints while OPENAI_BASE_URL is set measures the file's,
// and says so: a user who exported the variable expects it to count.
func (p *configParser) endpointsFrom(cfg *Config) {
	if len(cfg.Endpoints) > 0 {
		if base := os.Getenv("OPENAI_BASE_URL"); base != "" {
			cfg.Notes = append(cfg.Notes, fmt.Sprintf("OPENAI_BASE_URL is set (%s) but %s defines endpoints: measuring those; remove its endpoints: section to take the endpoint from the environment",
				stream.RedactURL(base), cfg.Source))
		}
		return
	}
	env, err := fromEnvironment()
	if err != nil {
		p.errs = append(p.errs, fmt.Errorf("%s has no endpoints: section, so the endpoint comes from the %w", cfg.Source, err))
		return
	}
	cfg.Endpoints, cfg.SimSpecs = env.Endpoints, env.SimSpecs
	if cfg.SimSpecs == nil {
		cfg.SimSpecs = map[string]string{}
	}
	cfg.Source = fmt.Sprintf("%s (objectives), endpoint from the %s", cfg.Source, env.Source)
}

// variable is ${NAME} or ${NAME:-default} in a value of the file.
var variable = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand replaces ${NAME} and ${NAME:-default} in every scalar value of the
// tree (keys are left as written) with the environment's value, the
// default when NAME is unset or empty. A variable that is unset and has no
// default is an error naming the line and key: an empty base URL or model
// would fail later, and far from its cause. Keys never come from the
// environment: api_key_env names the variable, the file never holds it.
func (p *configParser) expand(n *yaml.Node, key string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p.expand(n.Content[i+1], strings.TrimPrefix(key+"."+n.Content[i].Value, "."))
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			p.expand(c, key)
		}
	case yaml.ScalarNode:
		n.Value = variable.ReplaceAllStringFunc(n.Value, func(m string) string {
			sub := variable.FindStringSubmatch(m)
			if v := os.Getenv(sub[1]); v != "" {
				return v
			}
			if sub[2] != "" {
				return sub[3]
			}
			p.errf(n, key, "${%s} is not set (write ${%s:-default} for a default)", sub[1], sub[1])
			return ""
		})
	}
}

// budget parses budget: {max_requests: N, max_duration: 30m}.
func (p *configParser) budget(cfg *Config, n *yaml.Node) {
	budgetKeys.parse(p, n, "budget", &cfg.Budget)
}

// budgetKeys are the budget: block's keys.
var budgetKeys = section[*Budget]{
	whole("max_requests", "the most requests a run may send", 1, 1_000_000_000, func(b *Budget) *int { return &b.MaxRequests }),
	{"max_duration", "the longest a run may take", func(p *configParser, b *Budget, v *yaml.Node, key string) {
		d, err := parseDuration(v.Value)
		if err != nil || d <= 0 {
			p.errf(v, key, "%q is not a duration > 0 (e.g. 30m)", v.Value)
		}
		b.MaxDuration = d
	}},
}
