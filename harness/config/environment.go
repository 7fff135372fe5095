package config

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
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

// hidden is the plain word a variable is hidden behind while YAML reads
// the file (hideVariables), its index in the file's variables.
var hidden = regexp.MustCompile(`__llmsla_var_([0-9]+)__`)

// hideVariables puts each ${NAME} and ${NAME:-default} of the file's text
// behind a plain word (__llmsla_var_0__, …) before YAML reads it: in flow
// style ({ttft_p95_ms: ${TTFT:-3000}}, [${A}]) YAML reads a variable's
// braces as its own and refuses the file. expand puts each back before it
// expands it, so that a variable means the same in flow and block style,
// and its value is a value, never YAML. The words hold no newline, so the
// lines of errors stay; a file that holds such a word already is read as
// written, its variables unhidden.
func hideVariables(b []byte) ([]byte, []string) {
	if hidden.Match(b) {
		return b, nil
	}
	var vars []string
	out := lineVariable.ReplaceAllFunc(b, func(m []byte) []byte {
		vars = append(vars, string(m))
		return []byte("__llmsla_var_" + strconv.Itoa(len(vars)-1) + "__")
	})
	return out, vars
}

// lineVariable is a variable within one line, as hideVariables finds it.
var lineVariable = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}\n]*)?\}`)

// unhide puts back the variables hideVariables hid in s.
func (p *configParser) unhide(s string) string {
	if len(p.vars) == 0 {
		return s
	}
	return hidden.ReplaceAllStringFunc(s, func(m string) string {
		i, err := strconv.Atoi(hidden.FindStringSubmatch(m)[1])
		if err != nil || i >= len(p.vars) {
			return m
		}
		return p.vars[i]
	})
}

// flowHint is said of a file YAML refused that holds a variable: one
// hideVariables cannot hide (a default holding braces or a line break).
const flowHint = `; if a ${VAR} is the cause, quote the value it is in ("${VAR:-default}"): in { } and [ ] YAML reads braces as its own`

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
			n.Content[i].Value = p.unhide(n.Content[i].Value) // a key as written
			p.expand(n.Content[i+1], strings.TrimPrefix(key+"."+n.Content[i].Value, "."))
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			p.expand(c, key)
		}
	case yaml.ScalarNode:
		n.Value = variable.ReplaceAllStringFunc(p.unhide(n.Value), func(m string) string {
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
