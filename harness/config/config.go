// Package config says what to measure and against which objectives: the
// endpoints, and per scenario how many requests, at which load levels and
// under which SLA, with per-endpoint overrides. It comes from sla.yaml
// ([LoadFile]), the environment (OPENAI_BASE_URL), or — when neither is
// there — the built-in simulator, and every mistake in it is reported with
// file, line and key before any request is sent.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/internal/ci"
	"github.com/llmsla/llmsla/harness/internal/modroot"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// Config is the parsed SLA file: the endpoints to measure and, per scenario,
// how to run it and which objectives it must meet on each endpoint.
type Config struct {
	Source    string // the file it came from, or a description of the environment
	Endpoints []stream.Endpoint
	Scenarios map[string]Scenario
	// PerEndpoint holds scenario settings overridden for one endpoint:
	// PerEndpoint[scenario][endpoint].
	PerEndpoint map[string]map[string]Scenario
	Gate        Gate
	// SimSpecs holds the simulator spec of each simulated endpoint.
	SimSpecs map[string]string
	// Budget bounds what a run may send (budget: in the file).
	Budget Budget
	// Notes are said on a run's first lines: what the configuration chose
	// that the environment may make a user expect otherwise.
	Notes []string
	// Prices holds the price of each endpoint that has one in the file.
	Prices map[string]report.Price
	// Judge is the endpoint that judges answers under rubrics (judge: in
	// the file), nil when there is none.
	Judge *Judge
	// Servers holds how each endpoint's server is read, where the file
	// says more than the default (Server's zero value).
	Servers map[string]server.Config
	// Logs says how production's request logs are read (logs:).
	Logs Logs
	// latencyOnly: every scenario is QualityOff (LatencyOnly).
	latencyOnly bool
	// file and digest are the SLA file read and the digest of the bytes
	// parsed (File), "" for a configuration from the environment.
	file, digest string
	// keyEnvs names every api_key_env of the file, selected or not.
	keyEnvs []string
	// lines holds the line of each scenario named in the file, for errors
	// found after parsing (a scenario no suite defines).
	lines map[string]int
	// batches holds each batch: the file writes, per scenario, for
	// CheckBatch (which scenarios embed, the suites say).
	batches map[string][]keyAt
}

// Gate holds the defaults of `llmsla gate`, parsed once: a tolerance
// accepted here is one the gate accepts.
type Gate struct {
	Alpha       float64                   // every family's level, 0 when unset
	FamilyAlpha map[string]float64        // one family's level (latency, quality, runs)
	Tolerance   map[string]gate.Tolerance // unit or glob
}

// Generic is the scenario every suite-defined scenario starts from when
// neither a preset nor the SLA file says more: 20 samples at concurrency 1,
// 2 warm-up requests, and at most 1% errors. Quality minimums are added by
// package objective for every check the fixture implies.
func Generic() Scenario {
	return Scenario{Samples: 20, Concurrency: []int{1}, Warmup: 2, MaxTokens: 256,
		Objectives: objective.MustParse(map[string]float64{"error_rate_max": 0.01})}
}

// Presets are the usual targets (the seed articles'): chat p95 TTFT 600 ms
// / total 8 000 ms; extraction 1 500 / 10 000; summary 2 000 / 30 000;
// batch no latency target and at most 5% errors, at concurrency 16;
// tools (function calling) p95 time to the first tool-call delta 1 500,
// total 10 000, valid calls in 99% of answers and the expected call in
// 90% (the minimums package objective implies, stated); conversation
// chat's on every turn, 900 ms from turn 4 (conversation.go). Each preset
// sends its prompts under cache: bust: a fixture's few cases asked over
// and over would otherwise be served from the server's prefix cache, which
// users with prompts of their own do not get (docs/load.md); a
// conversation's later turns still find its own history cached, as they
// would in production.
func Presets() map[string]Scenario {
	with := func(maxTokens int, o map[string]float64) Scenario {
		sc := Generic()
		sc.Concurrency = []int{1, 5, 10}
		sc.MaxTokens = maxTokens
		sc.Objectives = objective.MustParse(o)
		sc.Cache = sample.CacheBust
		return sc
	}
	batch := with(64, map[string]float64{"error_rate_max": 0.05})
	batch.Samples, batch.Concurrency = 40, []int{16}
	// An agent loop is several model calls: its latency is the loop's.
	agent := with(256, map[string]float64{"agent_total_p95_ms": 30000, "error_rate_max": 0.01, "tool_valid_min": 0.99, "accuracy_min": 0.9})
	agent.Concurrency = []int{1, 4}
	// Embeddings: a request's latency is its whole body; no prefix cache
	// to bust, no answer to cap.
	embeddings := with(0, map[string]float64{"total_p95_ms": 2000, "error_rate_max": 0.01, "accuracy_min": 0.9})
	embeddings.Concurrency, embeddings.Cache = []int{1, 8, 32}, sample.CacheNatural
	return map[string]Scenario{
		"embeddings": embeddings,
		"agent":      agent,
		"chat":       with(64, map[string]float64{"ttft_p95_ms": 600, "total_p95_ms": 8000, "error_rate_max": 0.01}),
		"extraction": with(256, map[string]float64{"ttft_p95_ms": 1500, "total_p95_ms": 10000, "error_rate_max": 0.01}),
		"summary":    with(256, map[string]float64{"ttft_p95_ms": 2000, "total_p95_ms": 30000, "error_rate_max": 0.01}),
		"batch":      batch,
		"tools": with(256, map[string]float64{"ttftool_p95_ms": 1500, "total_p95_ms": 10000, "error_rate_max": 0.01,
			"tool_valid_min": 0.99, "tool_match_min": 0.9}),
		"conversation": conversationPreset(with(64, map[string]float64{"ttft_p95_ms": 600, "total_p95_ms": 8000, "error_rate_max": 0.01})),
	}
}

// Scenario returns the settings of a scenario on an endpoint: the file's
// (or the preset's, or the generic ones), with the endpoint's overrides on
// top. This is the one place an unnamed scenario gets its defaults.
func (c *Config) Scenario(scenario, endpoint string) Scenario {
	sc, ok := c.PerEndpoint[scenario][endpoint]
	if !ok {
		sc, ok = c.Scenarios[scenario]
	}
	if !ok {
		sc = Generic()
	}
	if c.Servers[endpoint].Exclusive {
		sc.Objectives = exclusiveObjectives(sc.Objectives)
	}
	if c.latencyOnly {
		sc.QualityOff = true
		sc.Objectives = slices.DeleteFunc(slices.Clone(sc.Objectives), func(th objective.Threshold) bool { return objective.Minimums.Has(th.Name) })
	}
	return sc
}

// LatencyOnly turns quality off on every scenario and drops its quality
// objectives (llmsla bench -latency-only: a load test of a model that is
// not meant to pass the fixtures), and says so on the run's first lines.
func (c *Config) LatencyOnly() {
	c.latencyOnly = true
	c.Notes = append(c.Notes, "-latency-only: no answer is judged, and every quality objective is dropped: the verdict is latency and errors only")
}

// Objectives is Scenario(…).Objectives, as a lookup for verdicts.
func (c *Config) Objectives(scenario, endpoint string) objective.Objectives {
	return c.Scenario(scenario, endpoint).Objectives
}

// CheckScenarios reports, with file and line, every scenario the file
// names that is not in defined: a typo there would otherwise measure
// nothing against the objectives the user wrote.
func (c *Config) CheckScenarios(defined []string) error {
	var errs []error
	names := make([]string, 0, len(c.lines))
	for name := range c.lines {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !slices.Contains(defined, name) {
			errs = append(errs, &fileError{c.Source, c.lines[name], "scenarios." + name,
				fmt.Sprintf("no such scenario (defined: %s)", strings.Join(defined, ", "))})
		}
	}
	return joinErrors(errs)
}

// Names reports whether the SLA file configures scenario (a scenarios:
// entry of its own): what it names, a run must measure.
func (c *Config) Names(scenario string) bool {
	_, ok := c.lines[scenario]
	return ok
}

// CheckJudged refuses a scenario the file configures that a run does not
// measure — neither among judged (the scenarios a bench measures, or its
// samples hold) nor a preset: its objectives would judge nothing (a
// scenario only a test runs, like golden; one -bench does not select).
// The plan and the verdict call it alike, so that -dry-run refuses what
// the verdict would.
func (c *Config) CheckJudged(judged []string, what string) error {
	var errs []error
	names := make([]string, 0, len(c.lines))
	for name := range c.lines {
		names = append(names, name)
	}
	slices.Sort(names)
	presets := Presets()
	for _, name := range names {
		if _, preset := presets[name]; !preset && !slices.Contains(judged, name) {
			errs = append(errs, &fileError{c.Source, c.lines[name], "scenarios." + name,
				fmt.Sprintf("not among the scenarios %s (%s): its objectives would judge nothing (a scenario only a test runs, or one -bench does not select)", what, strings.Join(judged, ", "))})
		}
	}
	return joinErrors(errs)
}

// Environment variables that select the configuration.
const (
	EnvConfig    = "LLMSLA_CONFIG"    // path of the SLA file
	EnvEndpoints = "LLMSLA_ENDPOINTS" // comma-separated endpoint names to measure
	EnvModel     = "LLMSLA_MODEL"
	EnvSim       = "LLMSLA_SIM" // simulator spec for the built-in endpoint
)

// Budget bounds a run: past MaxRequests requests or MaxDuration, it stops
// and says so; a plan over either is refused before the first request.
// Zero is no bound.
type Budget struct {
	MaxRequests int
	MaxDuration time.Duration
}

// Load finds and loads the configuration: $LLMSLA_CONFIG, else sla.yaml at
// the module root, else one endpoint from OPENAI_BASE_URL, OPENAI_API_KEY
// and LLMSLA_MODEL, else the built-in simulator. A file without endpoints:
// holds the objectives and takes its endpoint from the environment the
// same way (thresholds in the repository, the endpoint from CI). Every
// error names the file and key, and comes before any request is sent.
func Load() (*Config, error) {
	cfg, err := LoadWithoutKeys()
	if err != nil {
		return nil, err
	}
	return cfg, clean(cfg.selectEndpoints(os.Getenv(EnvEndpoints)))
}

// clean is err as it may be printed before there is a configuration to
// redact with: every secret variable's value (secret.FromEnvironment)
// taken out of its text — a path or a quoted value can hold one — and
// each line escaped for a terminal. Nil stays nil.
func clean(err error) error {
	if err == nil {
		return nil
	}
	lines := strings.Split(secret.FromEnvironment().Redact(err.Error()), "\n")
	for i, l := range lines {
		lines[i] = escape.Text(l)
	}
	return errors.New(strings.Join(lines, "\n"))
}

// LoadWithoutKeys loads the configuration as Load does, without reading
// API keys: for commands that send nothing (verdicts and reports over
// recorded samples), which must not fail where a key is set only for the
// step that measures.
func LoadWithoutKeys() (*Config, error) {
	if path := Path(); path != "" {
		return LoadFile(path)
	}
	cfg, err := fromEnvironment()
	return cfg, clean(err)
}

// fromEnvironment is the endpoint the environment names (OPENAI_BASE_URL),
// or the built-in simulator when it names none.
func fromEnvironment() (*Config, error) {
	if os.Getenv("OPENAI_BASE_URL") != "" {
		return fromEnv()
	}
	if model := os.Getenv(EnvModel); model != "" {
		// What GitHub gives a step for an unset secret: an empty variable.
		return nil, fmt.Errorf("environment: %s is set (%s) but OPENAI_BASE_URL is empty or unset, so there is no endpoint to measure it at (an unset CI secret is an empty variable): set OPENAI_BASE_URL, or unset %s to measure the built-in simulator",
			EnvModel, model, EnvModel)
	}
	if _, asked := os.LookupEnv(EnvSim); !asked && ci.Under() {
		return nil, fmt.Errorf("environment: under CI (CI or GITHUB_ACTIONS set) nothing names an endpoint — no endpoints: in an SLA file, OPENAI_BASE_URL empty or unset — and the built-in simulator is measured in CI only when asked: set %s (its spec; empty for the default) to measure it, or OPENAI_BASE_URL and %s to measure an endpoint",
			EnvSim, EnvModel)
	}
	return simulated()
}

// Path is the SLA file in use: $LLMSLA_CONFIG, else sla.yaml at the module
// root if there is one, else "" (configuration from the environment).
func Path() string {
	root, rootErr := ModuleRoot()
	if path := os.Getenv(EnvConfig); path != "" {
		// go test runs in the package's directory: a relative path that is
		// not there is taken from the module root, where the user typed it.
		if !filepath.IsAbs(path) && !fileExists(path) && rootErr == nil && fileExists(filepath.Join(root, path)) {
			return filepath.Join(root, path)
		}
		return path
	}
	if rootErr == nil {
		if p := filepath.Join(root, "sla.yaml"); fileExists(p) {
			return p
		}
	}
	return ""
}

// ModuleRoot is the directory holding go.mod, above the working directory.
func ModuleRoot() (string, error) { return modroot.FromWD() }

func fromEnv() (*Config, error) {
	base := os.Getenv("OPENAI_BASE_URL")
	model := os.Getenv(EnvModel)
	if model == "" {
		return nil, fmt.Errorf("environment: OPENAI_BASE_URL is set but %s is not: name the model to measure", EnvModel)
	}
	if err := checkURL(base); err != nil {
		return nil, fmt.Errorf("environment: OPENAI_BASE_URL: %w", err)
	}
	if err := checkModel(model); err != nil {
		return nil, fmt.Errorf("environment: %s: %w", EnvModel, err)
	}
	return &Config{
		Source: "environment (OPENAI_BASE_URL, LLMSLA_MODEL)",
		Endpoints: []stream.Endpoint{{Name: "default", BaseURL: base, Model: model, APIKey: os.Getenv("OPENAI_API_KEY"),
			Timeouts: stream.DefaultTimeouts}},
		Scenarios: Presets(),
	}, nil
}

// SimEndpoint is the name of the built-in simulator's endpoint.
const SimEndpoint = "sim"

func simulated() (*Config, error) {
	if err := validSimSpec(os.Getenv(EnvSim)); err != nil {
		return nil, fmt.Errorf("environment: %s: %w", EnvSim, err)
	}
	return &Config{
		Source:    "built-in simulator (no sla.yaml, no OPENAI_BASE_URL)",
		Endpoints: []stream.Endpoint{{Name: SimEndpoint, Model: "sim", Simulated: true, Kind: stream.KindVLLM, Timeouts: stream.DefaultTimeouts}},
		Scenarios: Presets(),
		SimSpecs:  map[string]string{SimEndpoint: os.Getenv(EnvSim)},
	}, nil
}

// Sim returns the simulator configuration of a simulated endpoint.
func (c *Config) Sim(endpoint string) (sim.Config, error) {
	spec := c.SimSpecs[endpoint]
	if strings.TrimSpace(spec) == "" {
		return sim.Default(), nil
	}
	s, err := sim.ParseSpec(spec)
	if err != nil {
		return s, fmt.Errorf("%s: simulator spec of endpoint %s: %w", c.Source, endpoint, err)
	}
	return s, nil
}

func validSimSpec(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	_, err := sim.ParseSpec(spec)
	return err
}

func (c *Config) selectEndpoints(list string) error {
	if list == "" {
		return c.resolveKeys()
	}
	var keep []stream.Endpoint
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if err := c.checkJudgeSelected(name); err != nil {
			return err
		}
		i := slices.IndexFunc(c.Endpoints, func(e stream.Endpoint) bool { return e.Name == name })
		if i < 0 {
			return fmt.Errorf("%s: endpoint %q is not in %s (have: %s)", EnvEndpoints, name, c.Source, strings.Join(c.EndpointNames(), ", "))
		}
		keep = append(keep, c.Endpoints[i])
	}
	c.Endpoints = keep
	return c.resolveKeys()
}

// resolveKeys reads the API key of each selected endpoint from the
// environment; a named variable that is unset is an error before any request.
func (c *Config) resolveKeys() error {
	var errs []error
	eps := make([]*stream.Endpoint, 0, len(c.Endpoints)+1)
	for i := range c.Endpoints {
		eps = append(eps, &c.Endpoints[i])
	}
	if c.Judge != nil {
		eps = append(eps, &c.Judge.Endpoint)
	}
	for _, ep := range eps {
		if ep.KeyEnv == "" {
			continue
		}
		ep.APIKey = os.Getenv(ep.KeyEnv)
		if ep.APIKey == "" {
			errs = append(errs, fmt.Errorf("%s: endpoints.%s.api_key_env: environment variable %s is not set", c.Source, ep.Name, ep.KeyEnv))
		}
	}
	return errors.Join(errs...)
}

// EndpointNames lists the configured endpoints.
func (c *Config) EndpointNames() []string {
	names := make([]string, len(c.Endpoints))
	for i, e := range c.Endpoints {
		names[i] = e.Name
	}
	return names
}

// Describe says which endpoints a run measures, saying so loudly when it is
// the simulator, and then the configuration's notes, one line each.
func (c *Config) Describe() []string {
	var parts []string
	for _, ep := range c.Endpoints {
		if ep.Simulated {
			parts = append(parts, ep.Name+" (the built-in simulator)")
		} else {
			parts = append(parts, ep.String())
		}
	}
	lines := []string{fmt.Sprintf("measuring %s — config: %s", strings.Join(parts, ", "), c.Source)}
	if j := c.Judge; j != nil {
		lines = append(lines, fmt.Sprintf("judge: %s, asked after each level's measured requests (its requests in no measured figure)", j.Endpoint))
	}
	for _, n := range c.Notes {
		lines = append(lines, "note: "+n)
	}
	return lines
}

// checkModel refuses a model name that would corrupt what is built from
// it: it is written into benchmark configuration lines (a newline would
// forge one) and shown on terminals (escape.CheckLine).
func checkModel(m string) error {
	if m == "" {
		return nil // said where a model is required
	}
	if len(m) > maxModel {
		return fmt.Errorf("a model name of %d bytes (allowed: at most %d): it names every benchmark line", len(m), maxModel)
	}
	return escape.CheckLine(m)
}

// maxModel bounds a model's name: the longest served names (a Hugging
// Face repository with its quantisation) are under 150 bytes.
const maxModel = 512

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Shown without its query or user info: a gateway's key lives there.
		return fmt.Errorf("%q is not an http(s) URL (e.g. https://api.openai.com/v1)", stream.RedactURL(s))
	}
	return nil
}

// parseDuration accepts Go durations ("30s", "1m30s").
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 30s, 2m)", s)
	}
	return d, nil
}

// Secrets returns the secret values the configuration knows, for redaction
// (package secret): of every endpoint, the API key read from its
// api_key_env (or OPENAI_API_KEY), every header value, and the values of
// its base URL's query and user info (stream.Endpoint.Secrets). Values too
// short to be secrets are left to secret.New to skip.
func (c *Config) Secrets() []string {
	var out []string
	for _, ep := range c.Endpoints {
		out = append(out, ep.Secrets()...)
	}
	if c.Judge != nil {
		out = append(out, c.Judge.Endpoint.Secrets()...)
	}
	// The keys of every endpoint the file names, selected or not, and the
	// usual variable, also where keys were not read (commands that send
	// nothing): a key in the environment is a key in any output.
	for _, env := range append(slices.Clone(c.keyEnvs), "OPENAI_API_KEY") {
		out = append(out, os.Getenv(env))
	}
	return out
}
