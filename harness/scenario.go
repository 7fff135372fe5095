package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/quality"
)

// Scenario is one workload as a suite declares it: what to ask and how to
// judge the answers. How many requests, at which concurrency and against
// which objectives comes from the SLA file, per endpoint.
type Scenario struct {
	Name    string // the key in the SLA file: chat, extraction, summary, batch, …
	Fixture string // JSONL cases, relative to the module root
	System  string // system prompt sent before each case's messages
	// Structured asks the endpoint for structured output: response_format
	// json_schema with the case's schema (json_object when it has none).
	Structured bool
	Lenient    bool // accept JSON inside a fence or prose, counted apart
	// Temperature and Seed make answers deterministic where the endpoint
	// allows it (golden outputs).
	Temperature *float32
	Seed        *int
	// Golden, a directory relative to the module root, compares each case's
	// answer with its golden file (go test -update rewrites them). It needs
	// Temperature 0 and a Seed.
	Golden string
}

// Run measures the scenario on every selected endpoint at every configured
// concurrency level, as subtests (TestChat/endpoint=prod/concurrency=5), and
// fails one line per objective not met.
func Run(t *testing.T, sc Scenario) []*Stats {
	t.Helper()
	return session(t).Run(t, sc)
}

// Bench measures the scenario as benchmarks, one iteration one request
// (BenchmarkChat/endpoint=prod/concurrency=5), reporting the run's figures
// in the units of METRICS.md.
func Bench(b *testing.B, sc Scenario) {
	b.Helper()
	session(b).Bench(b, sc)
}

// session returns the environment's session or stops the test with the
// configuration error, before any request is sent.
func session(t testing.TB) *Session {
	t.Helper()
	s, err := current()
	if err != nil {
		t.Fatalf("configuration: %v", err)
	}
	return s
}

// Run is the package-level Run on this session's endpoints; it returns the
// stats of every run, in order, for tests that look further.
func (s *Session) Run(t *testing.T, sc Scenario) []*Stats {
	t.Helper()
	prompts := s.mustPrompts(t, sc)
	var all []*Stats
	for _, ep := range s.cfg.Endpoints {
		t.Run("endpoint="+NameValue(ep.Name), func(t *testing.T) {
			if ep.Simulated {
				t.Logf("endpoint %s is the built-in simulator (config: %s)", ep.Name, s.cfg.Source)
			}
			conf := s.cfg.Scenario(sc.Name, ep.Name)
			for _, c := range conf.Concurrency {
				t.Run(fmt.Sprintf("concurrency=%d", c), func(t *testing.T) {
					samples := s.run(context.Background(), sc.Name, ep, conf, c, conf.Samples, prompts)
					st := Summarize(samples, conf.SLA)
					all = append(all, st)
					t.Log(st.Line())
					for _, v := range conf.SLA.Check(st) {
						t.Errorf("%s endpoint=%s concurrency=%d: %s", sc.Name, ep.Name, c, v)
					}
					for _, f := range st.Quality.Failures {
						t.Logf("failing case %s: expected %q, got %q %s", f.Case, f.Expected, f.Got, f.Detail)
					}
					if sc.Golden != "" {
						root, _ := ModuleRoot()
						CheckGolden(t, filepath.Join(root, sc.Golden), ep.Name, samples, updateGolden())
					}
				})
			}
			s.logBreakdown(t, sc.Name, ep, conf, prompts) // Ollama endpoints only: where the TTFT goes
		})
	}
	return all
}

// Bench is the package-level Bench on this session's endpoints.
func (s *Session) Bench(b *testing.B, sc Scenario) {
	b.Helper()
	prompts := s.mustPrompts(b, sc)
	printUnits.Do(func() { PrintBenchHeader(os.Stdout, s.cfg) })
	for _, ep := range s.cfg.Endpoints {
		conf := s.cfg.Scenario(sc.Name, ep.Name)
		for _, c := range conf.Concurrency {
			b.Run(fmt.Sprintf("endpoint=%s/concurrency=%d", NameValue(ep.Name), c), func(b *testing.B) {
				// The b.N = 1 call is go test's probe before the timed run
				// (-benchtime Nx, N > 1): its requests are warm-up.
				samples := s.run(context.Background(), sc.Name, ep, conf, c, b.N, prompts, Probe(b.N == 1))
				ReportMetrics(b, Summarize(samples, conf.SLA))
				if ep.Kind == "ollama" && b.N > 1 {
					s.reportBreakdown(b, ep, conf, prompts)
				}
			})
		}
	}
}

var printUnits sync.Once

// mustPrompts loads the scenario's fixture or stops the test with its
// error, before any request is sent.
func (s *Session) mustPrompts(t testing.TB, sc Scenario) Prompts {
	t.Helper()
	if sc.Golden != "" && !sc.deterministic() {
		t.Fatalf("scenario %s: golden outputs need Temperature 0 and a Seed", sc.Name)
	}
	prompts, err := s.prompts(sc)
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.Name, err)
	}
	return prompts
}

// Prompts builds the requests of a scenario from its fixture cases.
func (s *Session) prompts(sc Scenario) (Prompts, error) {
	if sc.Fixture == "" {
		return nil, fmt.Errorf("no fixture: a scenario needs cases to send")
	}
	path := sc.Fixture
	if !filepath.IsAbs(path) {
		root, err := ModuleRoot()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(root, path)
	}
	cases, err := quality.LoadCases(path)
	if err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", sc.Fixture)
	}
	type item struct {
		msgs  []openai.ChatCompletionMessage
		check *quality.Check
		rf    *openai.ChatCompletionResponseFormat
	}
	items := make([]item, len(cases))
	for i := range cases {
		c := &cases[i]
		var msgs []openai.ChatCompletionMessage
		if sc.System != "" {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: "system", Content: sc.System})
		}
		for _, m := range c.Render() {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
		}
		s.answers.add(msgs[len(msgs)-1].Content, c.Answer, c.WrongAnswer)
		chk := quality.NewCheck(c)
		chk.Lenient = sc.Lenient
		it := item{msgs: msgs, check: chk}
		if sc.Structured {
			rf, err := responseFormat(c)
			if err != nil {
				return nil, err
			}
			it.rf = rf
		}
		items[i] = it
	}
	return func(i int) Prompt {
		it := items[i%len(items)]
		return Prompt{
			Request: Request{Messages: it.msgs, Temperature: sc.Temperature, Seed: sc.Seed, ResponseFormat: it.rf},
			Case:    cases[i%len(cases)].ID,
			Check:   it.check,
		}
	}, nil
}

// responseFormat asks for the case's schema as structured output.
func responseFormat(c *quality.Case) (*openai.ChatCompletionResponseFormat, error) {
	if c.SchemaFile == "" {
		return &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}, nil
	}
	b, err := os.ReadFile(c.SchemaFile)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(c.SchemaFile), filepath.Ext(c.SchemaFile))
	return &openai.ChatCompletionResponseFormat{
		Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: json.RawMessage(b)},
	}, nil
}

var procsSuffix = regexp.MustCompile(`-(\d+)$`)

// NameValue escapes a value for a key=value benchmark name: "/" would start
// a new level and a trailing "-<digits>" would be read as GOMAXPROCS by
// benchfmt (model=gpt-4), so both become "_".
func NameValue(v string) string {
	v = strings.NewReplacer("/", "_", " ", "_").Replace(v)
	return procsSuffix.ReplaceAllString(v, "_$1")
}
