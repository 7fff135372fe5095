package harness

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Config is the parsed SLA file: the endpoints to measure and, per scenario,
// how to run it and which objectives it must meet on each endpoint.
type Config struct {
	Source    string // the file it came from, or a description of the environment
	Endpoints []Endpoint
	Scenarios map[string]ScenarioConfig
	// PerEndpoint holds scenario settings overridden for one endpoint:
	// PerEndpoint[scenario][endpoint].
	PerEndpoint map[string]map[string]ScenarioConfig
	Gate        GateConfig
	// SimSpecs holds the simulator spec of each simulated endpoint.
	SimSpecs map[string]string
}

// ScenarioConfig says how to run a scenario and what it must meet.
type ScenarioConfig struct {
	Samples     int   // measured requests per concurrency level
	Concurrency []int // closed-loop levels
	Warmup      int   // requests sent and discarded before measuring
	MaxTokens   int
	SLA         SLA
}

// GateConfig holds the defaults of `llmsla gate`.
type GateConfig struct {
	Alpha     float64
	Tolerance map[string]string // unit or glob → "10%" (relative) or "1" (absolute)
}

// DefaultScenarios are the usual targets: chat p95 TTFT 600 ms / total
// 8 000 ms; extraction 1 500 / 10 000; summary 2 000 / 30 000; batch no
// latency target.
func DefaultScenarios() map[string]ScenarioConfig {
	must := func(m map[string]float64) SLA {
		s, err := ParseSLA(m)
		if err != nil {
			panic(err)
		}
		return s
	}
	base := ScenarioConfig{Samples: 20, Concurrency: []int{1, 5, 10}, Warmup: 2}
	with := func(maxTokens int, sla SLA) ScenarioConfig {
		c := base
		c.Concurrency = slices.Clone(base.Concurrency)
		c.MaxTokens, c.SLA = maxTokens, sla
		return c
	}
	return map[string]ScenarioConfig{
		"chat":       with(64, must(map[string]float64{"ttft_p95_ms": 600, "total_p95_ms": 8000, "error_rate_max": 0.01})),
		"extraction": with(256, must(map[string]float64{"ttft_p95_ms": 1500, "total_p95_ms": 10000, "error_rate_max": 0.01})),
		"summary":    with(256, must(map[string]float64{"ttft_p95_ms": 2000, "total_p95_ms": 30000, "error_rate_max": 0.01})),
		"batch": {Samples: 40, Concurrency: []int{16}, Warmup: 2, MaxTokens: 64,
			SLA: must(map[string]float64{"error_rate_max": 0.05})},
	}
}

// Scenario returns the settings of scenario on endpoint: the scenario's
// (or the defaults'), with the endpoint's overrides on top.
func (c *Config) Scenario(scenario, endpoint string) ScenarioConfig {
	sc, ok := c.Scenarios[scenario]
	if !ok {
		sc = ScenarioConfig{Samples: 20, Concurrency: []int{1}, Warmup: 2}
	}
	if o, ok := c.PerEndpoint[scenario][endpoint]; ok {
		sc = o
	}
	return sc
}

// Environment variables that select the configuration.
const (
	EnvConfig    = "LLMSLA_CONFIG"    // path of the SLA file
	EnvEndpoints = "LLMSLA_ENDPOINTS" // comma-separated endpoint names to measure
	EnvModel     = "LLMSLA_MODEL"
	EnvSim       = "LLMSLA_SIM" // simulator spec for the built-in endpoint
)

// LoadConfig finds and loads the configuration: $LLMSLA_CONFIG, else
// sla.yaml at the module root, else one endpoint from OPENAI_BASE_URL,
// OPENAI_API_KEY and LLMSLA_MODEL, else the built-in simulator. Every error
// names the file and key, and comes before any request is sent.
func LoadConfig() (*Config, error) {
	path := ConfigPath()
	var cfg *Config
	var err error
	switch {
	case path != "":
		cfg, err = LoadConfigFile(path)
	case os.Getenv("OPENAI_BASE_URL") != "":
		cfg, err = envConfig()
	default:
		cfg, err = simConfig()
	}
	if err != nil {
		return nil, err
	}
	return cfg, cfg.selectEndpoints(os.Getenv(EnvEndpoints))
}

// ConfigPath is the SLA file in use: $LLMSLA_CONFIG, else sla.yaml at the
// module root if there is one, else "" (configuration from the environment).
func ConfigPath() string {
	if path := os.Getenv(EnvConfig); path != "" {
		// go test runs in the package's directory: a relative path that is
		// not there is taken from the module root, where the user typed it.
		if !filepath.IsAbs(path) && !fileExists(path) {
			if root, err := ModuleRoot(); err == nil && fileExists(filepath.Join(root, path)) {
				return filepath.Join(root, path)
			}
		}
		return path
	}
	if root, err := ModuleRoot(); err == nil {
		if p := filepath.Join(root, "sla.yaml"); fileExists(p) {
			return p
		}
	}
	return ""
}

func envConfig() (*Config, error) {
	base := os.Getenv("OPENAI_BASE_URL")
	model := os.Getenv(EnvModel)
	if model == "" {
		return nil, fmt.Errorf("environment: OPENAI_BASE_URL is set but %s is not: name the model to measure", EnvModel)
	}
	if err := checkURL(base); err != nil {
		return nil, fmt.Errorf("environment: OPENAI_BASE_URL: %w", err)
	}
	return &Config{
		Source:    "environment (OPENAI_BASE_URL, LLMSLA_MODEL)",
		Endpoints: []Endpoint{{Name: "default", BaseURL: base, Model: model, APIKey: os.Getenv("OPENAI_API_KEY"), Timeouts: DefaultTimeouts}},
		Scenarios: DefaultScenarios(),
	}, nil
}

// SimEndpoint is the name of the built-in simulator's endpoint.
const SimEndpoint = "sim"

func simConfig() (*Config, error) {
	if err := validSimSpec(os.Getenv(EnvSim)); err != nil {
		return nil, fmt.Errorf("environment: %s: %w", EnvSim, err)
	}
	return &Config{
		Source:    "built-in simulator (no sla.yaml, no OPENAI_BASE_URL)",
		Endpoints: []Endpoint{{Name: SimEndpoint, Model: "sim", Simulated: true, Timeouts: DefaultTimeouts}},
		Scenarios: DefaultScenarios(),
		SimSpecs:  map[string]string{SimEndpoint: os.Getenv(EnvSim)},
	}, nil
}

func (c *Config) selectEndpoints(list string) error {
	if list == "" {
		return c.resolveKeys()
	}
	var keep []Endpoint
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(c.Endpoints, func(e Endpoint) bool { return e.Name == name })
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
	for i := range c.Endpoints {
		ep := &c.Endpoints[i]
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

// ModuleRoot walks up from the working directory to the directory holding
// go.mod, so that tests running in suites/ find the repo's files.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL (e.g. https://api.openai.com/v1)", s)
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
