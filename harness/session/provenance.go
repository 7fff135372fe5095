package session

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// ProbeTimeout bounds the provenance probes of a run: every probe of every
// endpoint goes at once, and a server that hangs on them costs the run
// this, once.
const ProbeTimeout = 3 * time.Second

// probeLimit bounds the answer of a probe that is read.
const probeLimit = 1 << 20

// Provenance says what a run of scenarios measures beyond its figures
// (sample.Provenance): per endpoint what the server says of the model and
// of itself (probed, beside the preflight, once per run), per scenario its
// fixture's and schemas' content hashes and its requests' parameters, the
// requests' stream options, the configuration (config.Config.Record) and
// the client. A probe a server does not
// answer — no such path, an error, no answer within ProbeTimeout —
// leaves its keys out: unknown, never an error, and never a delay of the
// run beyond ProbeTimeout.
func (s *Session) Provenance(ctx context.Context, scenarios []Scenario) sample.Provenance {
	p := sample.Provenance{}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, ep := range s.cfg.Endpoints {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := probe(ctx, ep, s.eps.clients[ep.Name])
			mu.Lock()
			defer mu.Unlock()
			for k, v := range f {
				p.Set(s.secrets.Redact(v), "endpoint", sample.NameValue(ep.Name), k)
			}
		}()
	}
	wg.Wait()
	for _, sc := range scenarios {
		scenarioProvenance(p, s.cfg, sc)
	}
	p.Set(`{"include_usage":true}`, "request", "stream_options")
	p.Set("true", "request", "stream")
	s.cfg.Record(p) // what the run's verdicts are judged against
	clientProvenance(p)
	return p
}

// probe asks one endpoint's server what it serves, every probe at once:
// the models list (and the headers of its answer), vLLM's /version,
// llama.cpp's /props, Ollama's /api/version and then, on an Ollama,
// /api/tags and /api/show.
func probe(ctx context.Context, ep stream.Endpoint, c *stream.Client) facts {
	out := facts{"model": ep.Model, "request.max_tokens_param": maxTokensParam(ep), "api": string(ep.API.Or())}
	if ep.API == stream.APIResponses {
		// Said, so that a verdict on conversations reads how they went.
		out["request.conversation"] = "history in full, no previous_response_id"
	}
	if ep.API == stream.APIMessages {
		out["anthropic_version"] = ep.AnthropicVersion
		if ep.AnthropicVersion == "" {
			out["anthropic_version"] = stream.DefaultAnthropicVersion
		}
	}
	var mu sync.Mutex
	add := func(f facts) {
		mu.Lock()
		defer mu.Unlock()
		for k, v := range f {
			if v != "" && out[k] == "" {
				out[k] = v
			}
		}
	}
	get := func(u string, body []byte) ([]byte, bool) {
		b, _, _, err := c.FetchHeader(ctx, u, body, probeLimit)
		return b, err == nil
	}
	probes := []func(){
		func() {
			b, _, h, err := c.FetchHeader(ctx, c.Below("models"), nil, probeLimit)
			add(readHeaders(h))
			if err == nil {
				add(readModels(b, ep.Model))
			}
		},
		func() {
			if b, ok := get(c.Root("/version"), nil); ok {
				if v := readVersion(b); v != "" {
					add(facts{"server.version": v, "server.kind": "vllm"})
				}
			}
		},
		func() {
			if b, ok := get(c.Root("/props"), nil); ok {
				add(readLlamaProps(b))
			}
		},
		func() { add(probeOllama(c, ep.Model, get)) },
	}
	var wg sync.WaitGroup
	for _, f := range probes {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
	if ep.Simulated {
		out["server.kind"] = "llmsla-sim"
	}
	return out
}

// probeOllama asks an Ollama its version, and then, being one, the
// digest and details of the model (/api/tags) and its context length
// (/api/show).
func probeOllama(c *stream.Client, model string, get func(string, []byte) ([]byte, bool)) facts {
	b, ok := get(c.Root("/api/version"), nil)
	v := readVersion(b)
	if !ok || v == "" {
		return nil
	}
	f := facts{"server.kind": "ollama", "server.version": v}
	if b, ok := get(c.Root("/api/tags"), nil); ok {
		for k, v := range readOllamaTags(b, model) {
			f[k] = v
		}
	}
	body, _ := json.Marshal(map[string]string{"model": model})
	if b, ok := get(c.Root("/api/show"), body); ok {
		for k, v := range readOllamaShow(b) {
			if f[k] == "" {
				f[k] = v
			}
		}
	}
	return f
}

func maxTokensParam(ep stream.Endpoint) string {
	switch ep.API {
	case stream.APIResponses:
		return "max_output_tokens"
	case stream.APIEmbeddings:
		return notSent
	}
	if ep.MaxTokensParam != "" {
		return ep.MaxTokensParam
	}
	return stream.MaxTokens
}

// notSent is the value of a request parameter llmsla does not send: the
// server's default applies.
const notSent = "not sent (the server's default)"

// scenarioProvenance adds what a scenario asks: the content hashes of its
// fixture, of each case's schema and of its system prompt, whether it
// asks for structured output, its sampling parameters, and per endpoint
// its answers' cap and cache policy.
func scenarioProvenance(p sample.Provenance, cfg *config.Config, sc Scenario) {
	key := func(v string, parts ...string) {
		p.Set(v, append([]string{"scenario", sample.NameValue(sc.Name)}, parts...)...)
	}
	path, err := FromRoot(sc.Fixture)
	if err == nil {
		key(fileHash(path), "fixture", "sha256")
		key(sc.Fixture, "fixture", "file")
	}
	if cases, err := quality.LoadCases(path); err == nil {
		for _, c := range cases {
			if c.SchemaFile != "" {
				key(fileHash(c.SchemaFile), "schema", filepath.Base(c.SchemaFile), "sha256")
			}
		}
	}
	if sc.System != "" {
		key(textHash(sc.System), "system", "sha256")
	}
	key(strconv.FormatBool(sc.Structured), "structured")
	key(notSent, "top_p")
	key(notSent, "temperature")
	key(notSent, "seed")
	if sc.Temperature != nil {
		key(strconv.FormatFloat(float64(*sc.Temperature), 'g', -1, 32), "temperature")
	}
	if sc.Seed != nil {
		key(strconv.Itoa(*sc.Seed), "seed")
	}
	for _, ep := range cfg.Endpoints {
		conf := cfg.Scenario(sc.Name, ep.Name)
		name := sample.NameValue(ep.Name)
		key(strconv.Itoa(conf.MaxTokens), "endpoint", name, "max_tokens")
		cache := string(conf.Cache.Or())
		if slices.ContainsFunc(conf.Levels(), func(l config.Level) bool { _, own := l.Pacer.(load.Sourced); return own }) {
			cache = string(sample.CacheNatural) + " (a trace's rows, sent without a marker)"
		}
		key(cache, "endpoint", name, "cache")
		if conf.Cache == sample.CacheWarm {
			key(strconv.Itoa(conf.WarmPrefix()), "endpoint", name, "prefix_tokens")
		}
	}
}

// fileHash is "sha256:<hex>" of the file at path, "" when it cannot be
// read (the fixture's loading says why).
func fileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func textHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// clientProvenance adds the client that measured: llmsla's commit, Go's
// version, the OS and architecture, the CPU's model, its cores and
// GOMAXPROCS.
func clientProvenance(p sample.Provenance) {
	p.Set(Commit(), "client", "llmsla")
	p.Set(runtime.Version(), "client", "go")
	p.Set(runtime.GOOS+"/"+runtime.GOARCH, "client", "os")
	p.Set(cpuModel(), "client", "cpu")
	p.Set(strconv.Itoa(runtime.NumCPU()), "client", "cores")
	p.Set(strconv.Itoa(runtime.GOMAXPROCS(0)), "client", "gomaxprocs")
}

// cpuModel is the CPU's model name from /proc/cpuinfo (Linux), "" where
// there is none.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Commit is llmsla's own version: the git commit of the working tree
// ("-dirty" when it has uncommitted changes), "unknown" outside one.
func Commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "-dirty"
	}
	return c
}
