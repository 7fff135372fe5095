package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
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

// File is the SLA file the configuration was read from and the digest of
// the bytes parsed (Digest): what a run records, so that its verdicts and
// reports are judged against the file it ran under. "", "" for a
// configuration from the environment or the built-in simulator.
func (c *Config) File() (path, digest string) { return c.file, c.digest }

// Digest is "sha256:<hex>" of an SLA file's bytes.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
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
		SimSpecs: map[string]string{}, Prices: map[string]report.Price{}, lines: map[string]int{}, file: path, digest: Digest(b)}
	p := &configParser{file: path, vars: vars}
	p.expand(doc.Content[0], "")
	f := &fileAt{cfg: cfg}
	fileKeys.parse(p, doc.Content[0], "", f)
	if len(p.errs) == 0 {
		p.endpointsFrom(cfg)
	}
	p.checkFixed(cfg)
	for _, o := range f.overrides {
		if !slices.Contains(cfg.EndpointNames(), o.endpoint) {
			p.errf(o.node, "scenarios."+o.scenario+".endpoints."+o.endpoint,
				"no endpoint named %q (have: %s)", o.endpoint, strings.Join(cfg.EndpointNames(), ", "))
		}
	}
	p.resolveJudge(cfg, f.judge)
	if len(p.errs) > 0 {
		return nil, joinErrors(p.errs)
	}
	return cfg, nil
}

// fileAt is the file as its sections are read. The endpoints a scenario
// overrides and the judge's are checked once every endpoint is known.
type fileAt struct {
	cfg       *Config
	overrides []override
	judge     *judgeBlock
}

// override is a scenario's settings for one endpoint, at node.
type override struct {
	scenario, endpoint string
	node               *yaml.Node
}

// fileKeys are the file's sections.
var fileKeys = section[*fileAt]{
	{"endpoints", "the endpoints to measure, by name", func(p *configParser, f *fileAt, v *yaml.Node, key string) {
		p.mapping(v, key, nil, func(name string, v *yaml.Node) {
			f.cfg.Endpoints = append(f.cfg.Endpoints, p.endpoint(f.cfg, name, v))
		})
	}},
	{"scenarios", "each scenario's settings, by name", func(p *configParser, f *fileAt, v *yaml.Node, key string) {
		p.mapping(v, key, nil, func(name string, v *yaml.Node) {
			p.scenario(f.cfg, name, v, func(ep string, n *yaml.Node) { f.overrides = append(f.overrides, override{name, ep, n}) })
		})
	}},
	{"gate", "how llmsla gate compares runs", func(p *configParser, f *fileAt, v *yaml.Node, _ string) { p.gate(f.cfg, v) }},
	{"budget", "the most a run may send, and take", func(p *configParser, f *fileAt, v *yaml.Node, _ string) { p.budget(f.cfg, v) }},
	{"judge", "the endpoint that judges answers under rubrics", func(p *configParser, f *fileAt, v *yaml.Node, _ string) { f.judge = p.judge(f.cfg, v) }},
	{"logs", "how production's request logs are read", func(p *configParser, f *fileAt, v *yaml.Node, _ string) { p.logs(f.cfg, v) }},
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

func (p *configParser) gate(cfg *Config, n *yaml.Node) {
	cfg.Gate.Tolerance = map[string]gate.Tolerance{}
	gateKeys.parse(p, n, "gate", &cfg.Gate)
}

// gateKeys are the gate: block's keys.
var gateKeys = section[*Gate]{
	{"alpha", "the significance level, per family or one for all", func(p *configParser, g *Gate, v *yaml.Node, key string) {
		level := func(v *yaml.Node, key string) float64 {
			a := p.num(v, key)
			if !(a > 0 && a < 0.5) {
				p.errf(v, key, "%v is not a significance level (want 0 < alpha < 0.5, e.g. 0.05)", a)
			}
			return a
		}
		if v.Kind == yaml.ScalarNode {
			g.Alpha = level(v, key)
			return
		}
		// One level per family: the quality family's default is ten
		// times stricter than the latency one's, and one number for
		// every family would loosen it.
		g.FamilyAlpha = map[string]float64{}
		p.mapping(v, key, gateFamilies, func(f string, v *yaml.Node) {
			g.FamilyAlpha[f] = level(v, key+"."+f)
		})
	}},
	{"tolerance", "a difference too small to fail, per unit or glob", func(p *configParser, g *Gate, v *yaml.Node, key string) {
		p.mapping(v, key, nil, func(unit string, v *yaml.Node) {
			s := p.str(v, key+"."+unit)
			_, t, err := gate.ParseTolerance(unit + "=" + s)
			if err != nil {
				p.errf(v, key+"."+unit, "%v", err)
				return
			}
			g.Tolerance[unit] = t
		})
	}},
}

// gateFamilies are gate.alpha's keys.
var gateFamilies = []string{gate.FamilyLatency, gate.FamilyQuality, gate.FamilyRuns}

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

func apis() string {
	names := make([]string, len(stream.APIs))
	for i, a := range stream.APIs {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

func kinds() string {
	names := make([]string, len(stream.Kinds))
	for i, k := range stream.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
