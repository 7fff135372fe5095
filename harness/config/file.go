package config

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/stream"
	"gopkg.in/yaml.v3"
)

// fileError is an error in the SLA file, placed by file, line and key.
type fileError struct {
	file string
	line int
	key  string
	msg  string
}

func (e *fileError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.file, e.line, e.key, e.msg)
}

// configParser walks the YAML tree so that each error can name its line and
// its full key; unknown keys are errors, not silently ignored.
type configParser struct {
	file string
	errs []error
	// fixed are the output_tokens: {fixed: N} the file asks for, checked
	// once the endpoints are known.
	fixed []fixedAt
	vars  []string // the file's variables, hidden while YAML read it
}

func (p *configParser) errf(n *yaml.Node, key, format string, args ...any) {
	p.errs = append(p.errs, &fileError{p.file, n.Line, key, fmt.Sprintf(format, args...)})
}

// mapping calls fn for each key of a mapping node, rejecting keys not in
// allowed (nil allows any).
func (p *configParser) mapping(n *yaml.Node, key string, allowed []string, fn func(k string, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.errf(n, key, "want a mapping of keys to values")
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		full := strings.TrimPrefix(key+"."+k, ".")
		if first, dup := seen[k]; dup {
			// YAML leaves a repeated key to the reader; merging the two
			// silently would measure against half of what was written.
			p.errf(n.Content[i], full, "repeated key (first at line %d): write it once", first)
			continue
		}
		seen[k] = n.Content[i].Line
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

func (p *configParser) count(n *yaml.Node, key string, min, max int) int {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < min || v > max {
		p.errf(n, key, "%q is not a whole number from %d to %d", n.Value, min, max)
	}
	return v
}

// LoadFile reads and validates an SLA file.
func LoadFile(path string) (*Config, error) {
	cfg, err := loadFile(path)
	return cfg, clean(err)
}

func loadFile(path string) (*Config, error) {
	b, err := readBounded(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	text, vars := hideVariables(b)
	doc, err := oneDocument(path, text)
	if err != nil {
		if bytes.Contains(b, []byte("${")) {
			err = fmt.Errorf("%w%s", err, flowHint)
		}
		return nil, err
	}
	cfg := &Config{Source: path, Scenarios: Presets(), PerEndpoint: map[string]map[string]Scenario{},
		SimSpecs: map[string]string{}, Prices: map[string]report.Price{}, lines: map[string]int{}}
	p := &configParser{file: path, vars: vars}
	p.expand(doc.Content[0], "")
	type override struct {
		scenario, endpoint string
		node               *yaml.Node
	}
	var overrides []override
	var judge *judgeBlock
	p.mapping(doc.Content[0], "", []string{"endpoints", "scenarios", "gate", "budget", "judge", "logs"}, func(k string, v *yaml.Node) {
		switch k {
		case "endpoints":
			p.mapping(v, "endpoints", nil, func(name string, v *yaml.Node) {
				cfg.Endpoints = append(cfg.Endpoints, p.endpoint(cfg, name, v))
			})
		case "scenarios":
			p.mapping(v, "scenarios", nil, func(name string, v *yaml.Node) {
				p.scenario(cfg, name, v, func(ep string, n *yaml.Node) { overrides = append(overrides, override{name, ep, n}) })
			})
		case "gate":
			p.gate(cfg, v)
		case "budget":
			p.budget(cfg, v)
		case "judge":
			judge = p.judge(cfg, v)
		case "logs":
			p.logs(cfg, v)
		}
	})
	if len(p.errs) == 0 {
		p.endpointsFrom(cfg)
	}
	p.checkFixed(cfg)
	for _, o := range overrides {
		if !slices.Contains(cfg.EndpointNames(), o.endpoint) {
			p.errf(o.node, "scenarios."+o.scenario+".endpoints."+o.endpoint,
				"no endpoint named %q (have: %s)", o.endpoint, strings.Join(cfg.EndpointNames(), ", "))
		}
	}
	p.resolveJudge(cfg, judge)
	if len(p.errs) > 0 {
		return nil, joinErrors(p.errs)
	}
	return cfg, nil
}

// maxFile bounds an SLA file: it is read whole, and one far larger is no
// SLA file (a log or a data set named by mistake).
const maxFile = 4 << 20

// readBounded reads path, refusing a file over maxFile before reading it.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxFile {
		return nil, fmt.Errorf("%s: %d bytes (allowed: at most %d): not an SLA file", path, st.Size(), maxFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err == nil && len(b) > maxFile {
		err = fmt.Errorf("%s: more than %d bytes: not an SLA file", path, maxFile)
	}
	return b, err
}

// oneDocument parses the file's one YAML document. A second document
// (after a ---) is an error: a decoder reads the first alone, and the
// endpoints or objectives written below the --- would be silently ignored.
func oneDocument(path string, b []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case err == io.EOF || err == nil && len(doc.Content) == 0:
		return nil, fmt.Errorf("%s: empty file: want at least an endpoints: section", path)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
		return &doc, nil
	case err != nil:
		return nil, fmt.Errorf("%s: a second YAML document: %w; keep the whole configuration in one document (no ---)", path, err)
	}
	return nil, fmt.Errorf("%s:%d: a second YAML document (after ---) would be ignored; keep the whole configuration in one document", path, next.Line)
}

// checkName rejects names that would corrupt what is built from them: an
// endpoint or scenario name becomes a benchmark name (a newline would forge
// a benchmark line), a golden directory (a "/" or ".." would write outside
// golden/) and a key=value label (an "=" would shift it).
func (p *configParser) checkName(n *yaml.Node, key, name string) bool {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\=\x00") ||
		strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		p.errf(n, key, "%q is not a name (letters, digits and . _ - only; no spaces, / or =)", name)
		return false
	}
	return true
}

var endpointKeys = []string{"base_url", "model", "api_key_env", "headers", "timeouts", "kind", "max_tokens_param", "sim", "price",
	"server_metrics", "server_pid", "exclusive"}

func (p *configParser) endpoint(cfg *Config, name string, n *yaml.Node) stream.Endpoint {
	key := "endpoints." + name
	ep := stream.Endpoint{Name: name, Timeouts: stream.DefaultTimeouts, Kind: stream.KindOpenAI}
	p.checkName(n, key, name)
	isSim, kindSet := false, false
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
			if err := checkModel(ep.Model); err != nil {
				p.errf(v, k2, "%v", err)
			}
		case "api_key_env":
			ep.KeyEnv = p.str(v, k2)
			cfg.keyEnvs = append(cfg.keyEnvs, ep.KeyEnv)
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
			kindSet = true
			ep.Kind = stream.Kind(p.str(v, k2))
			if !slices.Contains(stream.Kinds, ep.Kind) {
				p.errf(v, k2, "%q is not a kind (allowed: %s)", ep.Kind, kinds())
			}
		case "max_tokens_param":
			ep.MaxTokensParam = p.str(v, k2)
			if ep.MaxTokensParam != stream.MaxTokens && ep.MaxTokensParam != stream.MaxCompletionTokens {
				p.errf(v, k2, "%q is not a parameter (allowed: %s, %s)", ep.MaxTokensParam, stream.MaxTokens, stream.MaxCompletionTokens)
			}
		case "sim":
			isSim = true
			spec := p.str(v, k2)
			if err := validSimSpec(spec); err != nil {
				p.errf(v, k2, "%v", err)
			}
			cfg.SimSpecs[name] = spec
		case "price":
			if pr, ok := p.price(v, k2); ok {
				cfg.Prices[name] = pr
			}
		case "server_metrics", "server_pid", "exclusive":
			p.server(cfg, name, k, v, k2)
		}
	})
	switch {
	case isSim && ep.BaseURL != "":
		p.errf(n, key, "set either base_url or sim, not both")
	case isSim:
		ep.Simulated = true
		if !kindSet {
			ep.Kind = stream.KindVLLM // the simulator takes vLLM's extra parameters
		}
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

// maxPrice bounds a price (per million tokens, or per hour): far above any
// real one, low enough that a cost over a million requests stays a
// finite number in every report.
const maxPrice = 1e6

var priceKeys = []string{"input_per_mtok", "output_per_mtok", "per_hour", "currency"}

// price parses an endpoint's price: {input_per_mtok, output_per_mtok,
// currency} or {per_hour, currency}. A price that cannot be right (negative,
// both kinds, one per-token price without the other, no currency) is an
// error here, before any request, rather
// than a cost figure nobody can trust.
func (p *configParser) price(n *yaml.Node, key string) (report.Price, bool) {
	pr := report.Price{}
	before := len(p.errs)
	var in, out bool // per-token prices written
	p.mapping(n, key, priceKeys, func(k string, v *yaml.Node) {
		k2 := key + "." + k
		if k == "currency" {
			pr.Currency = p.str(v, k2)
			if !isCurrency(pr.Currency) {
				p.errf(v, k2, "%q is not a currency (letters only, e.g. USD, EUR)", pr.Currency)
			}
			return
		}
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > maxPrice {
			p.errf(v, k2, "%q is not a price (want a number from 0 to %g, e.g. 0.15)", v.Value, float64(maxPrice))
			return
		}
		switch k {
		case "input_per_mtok":
			pr.InputPerMTok, in = f, true
		case "output_per_mtok":
			pr.OutputPerMTok, out = f, true
		case "per_hour":
			pr.PerHour, pr.Hourly = f, true
		}
	})
	if n.Kind == yaml.MappingNode {
		switch {
		case (in || out) && pr.Hourly:
			p.errf(n, key, "set per-token prices (input_per_mtok, output_per_mtok) or per_hour, not both")
		case !in && !out && !pr.Hourly:
			p.errf(n, key, "no price: set input_per_mtok and output_per_mtok (per million tokens), or per_hour")
		case in && !out:
			// A missing price is not a price of 0: the cost would leave out
			// every output token. A free direction is written as 0.
			p.errf(n, key+".output_per_mtok", "missing: a per-token price needs input_per_mtok and output_per_mtok (write 0 for free)")
		case out && !in:
			p.errf(n, key+".input_per_mtok", "missing: a per-token price needs input_per_mtok and output_per_mtok (write 0 for free)")
		}
		if pr.Currency == "" {
			p.errf(n, key+".currency", "missing: name the currency of the price (e.g. USD)")
		}
	}
	return pr, len(p.errs) == before
}

func isCurrency(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func (p *configParser) gate(cfg *Config, n *yaml.Node) {
	cfg.Gate.Tolerance = map[string]gate.Tolerance{}
	p.mapping(n, "gate", []string{"alpha", "tolerance"}, func(k string, v *yaml.Node) {
		switch k {
		case "alpha":
			level := func(v *yaml.Node, key string) float64 {
				a := p.num(v, key)
				if !(a > 0 && a < 0.5) {
					p.errf(v, key, "%v is not a significance level (want 0 < alpha < 0.5, e.g. 0.05)", a)
				}
				return a
			}
			if v.Kind == yaml.ScalarNode {
				cfg.Gate.Alpha = level(v, "gate.alpha")
				return
			}
			// One level per family: the quality family's default is ten
			// times stricter than the latency one's, and one number for
			// every family would loosen it.
			cfg.Gate.FamilyAlpha = map[string]float64{}
			p.mapping(v, "gate.alpha", []string{gate.FamilyLatency, gate.FamilyQuality, gate.FamilyRuns}, func(f string, v *yaml.Node) {
				cfg.Gate.FamilyAlpha[f] = level(v, "gate.alpha."+f)
			})
		case "tolerance":
			p.mapping(v, "gate.tolerance", nil, func(unit string, v *yaml.Node) {
				s := p.str(v, "gate.tolerance."+unit)
				_, t, err := gate.ParseTolerance(unit + "=" + s)
				if err != nil {
					p.errf(v, "gate.tolerance."+unit, "%v", err)
					return
				}
				cfg.Gate.Tolerance[unit] = t
			})
		}
	})
}

// joinErrors joins config errors one per line.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("%d errors in the configuration:\n  %s", len(errs), strings.Join(msgs, "\n  "))
}

func kinds() string {
	names := make([]string, len(stream.Kinds))
	for i, k := range stream.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
