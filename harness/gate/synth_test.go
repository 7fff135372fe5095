package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/internal/inference"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// A generator of recorded runs shaped like the suites on one endpoint: the
// benchfmt file llmsla bench writes and the samples file beside it, drawn
// request by request, so that the gate is measured on what it reads.
//
// Four scenarios, ten benchmarks (batch at concurrency 16; chat,
// extraction and summary at 1, 5 and 10), each run -count times with n
// requests. Per request:
//
//   - TTFT is lognormal around the scenario's median, σ = 0.2 on the log
//     scale (the simulator's is 0.1; a real endpoint's wider), 5% slower
//     per step of concurrency, times the run's factor: drift between runs,
//     lognormal with σ = 0.03 unless a test sets another;
//   - every inter-token gap is the scenario's TPOT with σ = 0.1; total =
//     TTFT + the gaps;
//   - 0.5% of requests fail (a server error);
//   - each run asks the next n cases of its scenario's fixture, walking it
//     from a random start, as the harness does; a case's answer is right
//     every time (85% of cases), wrong every time (5%) or right half the
//     time (10%), so accuracy is 90%. Which case is which belongs to the
//     fixture and the model, and is the same on both sides. Extraction's
//     JSON is valid except for one case in eleven that is valid half the
//     time.
//
// The benchmark figures of a run are what the harness reports for it:
// objective.Judge over its samples, in the units of the metric table.

type synthScenario struct {
	name    string
	levels  []int
	cases   int
	tokens  int
	ttft    float64 // ms, median at concurrency 1
	tpot    float64 // ms
	structd bool    // JSON and schema checks
}

var synthSuite = []synthScenario{
	{name: "batch", levels: []int{16}, cases: 40, tokens: 1, ttft: 180, tpot: 20},
	{name: "chat", levels: []int{1, 5, 10}, cases: 40, tokens: 8, ttft: 250, tpot: 25},
	{name: "extraction", levels: []int{1, 5, 10}, cases: 22, tokens: 30, ttft: 400, tpot: 20, structd: true},
	{name: "summary", levels: []int{1, 5, 10}, cases: 11, tokens: 40, ttft: 500, tpot: 15},
}

// synthChange is what the candidate does differently, on one scenario
// (all when scenario is "").
type synthChange struct {
	scenario string
	// scale multiplies every TTFT (a uniform regression).
	scale float64
	// A fraction tailFrac of requests is tailK times slower (a tail
	// regression: one request in ten).
	tailFrac, tailK float64
	// broken cases that were right every time are wrong every time.
	broken int
}

func (c synthChange) on(scenario string) bool { return c.scenario == "" || c.scenario == scenario }

// synthWorld is what both sides share: the fixtures' cases and how the
// model does on each.
type synthWorld struct {
	// kind[scenario][case]: 'r' right, 'w' wrong, 'c' a coin; json 'c'
	// for the structured scenario's flaky case.
	kind, json map[string][]byte
}

func newWorld(rng *rand.Rand) *synthWorld {
	w := &synthWorld{kind: map[string][]byte{}, json: map[string][]byte{}}
	for _, sc := range synthSuite {
		k := make([]byte, sc.cases)
		for i := range k {
			switch u := rng.Float64(); {
			case u < 0.05:
				k[i] = 'w'
			case u < 0.15:
				k[i] = 'c'
			default:
				k[i] = 'r'
			}
		}
		w.kind[sc.name] = k
		j := make([]byte, sc.cases)
		for i := range j {
			j[i] = 'r'
		}
		j[rng.IntN(sc.cases)] = 'c'
		w.json[sc.name] = j
	}
	return w
}

// synthSide draws one side's recording.
type synthSide struct {
	runs, n int
	procs   int
	// drift returns run i's log-factor, shared by every benchmark of the
	// run (the machine's state); nil: each benchmark's run its own,
	// lognormal with σ = 0.03.
	drift  func(run int) float64
	sigma  float64 // per-request log-sd of TTFT; 0: 0.2
	change synthChange
	label  string
}

// synthRecording is a generated side: benchfmt text and samples.
type synthRecording struct {
	txt     string
	samples []sample.Sample
}

func (r synthRecording) source(name string) recording.Source {
	return recording.Stream(name, strings.NewReader(r.txt)).WithSamples(r.samples)
}

// write puts the recording in dir as name.txt and name.samples.jsonl.
func (r synthRecording) write(dir, name string) (string, error) {
	txt := filepath.Join(dir, name+".txt")
	if err := os.WriteFile(txt, []byte(r.txt), 0o644); err != nil {
		return "", err
	}
	f, err := sample.Create(recording.SamplesBeside(txt), nil)
	if err != nil {
		return "", err
	}
	for i := range r.samples {
		f.Write(&r.samples[i])
	}
	return txt, f.Close()
}

var synthObjectives = objective.MustParse(map[string]float64{"ttft_p95_ms": 800, "error_rate_max": 0.02})

func (w *synthWorld) record(rng *rand.Rand, o synthSide) synthRecording {
	if o.sigma == 0 {
		o.sigma = 0.2
	}
	if o.procs == 0 {
		o.procs = 2
	}
	var b strings.Builder
	for _, u := range metric.Units() {
		fmt.Fprintf(&b, "Unit %s better=%s\n", u.Unit(), u.Better())
	}
	b.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/llmsla/llmsla/suites\n")
	var all []sample.Sample
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	walk := map[string]int{}
	for _, sc := range synthSuite {
		walk[sc.name] = rng.IntN(sc.cases)
	}
	for run := range o.runs {
		for _, sc := range synthSuite {
			for li, c := range sc.levels {
				var drift float64
				if o.drift != nil {
					drift = o.drift(run)
				} else {
					drift = 0.03 * rng.NormFloat64()
				}
				id := fmt.Sprintf("%s.%d.%s.%d", o.label, run, sc.name, c)
				samples := make([]sample.Sample, o.n)
				for i := range samples {
					samples[i] = w.request(rng, o, sc, li, drift, walk[sc.name]+i, start)
					samples[i].Run, samples[i].Seq = id, i
					samples[i].Level = sample.NewLevel("concurrency", c)
				}
				walk[sc.name] += o.n
				st := objective.Judge(samples, synthObjectives).Stats
				fmt.Fprintf(&b, "Benchmark%s/endpoint=sim/concurrency=%d-%d\t%d\t0 ns/op", strings.ToUpper(sc.name[:1])+sc.name[1:], c, o.procs, o.n)
				for _, u := range metric.Units() {
					if v, ok := u.Bench(st); ok {
						fmt.Fprintf(&b, "\t%.4g %s", v, u.Unit())
					}
				}
				b.WriteString("\n")
				all = append(all, samples...)
			}
		}
	}
	b.WriteString("PASS\nok  \tgithub.com/llmsla/llmsla/suites\t75.0s\n")
	return synthRecording{txt: b.String(), samples: all}
}

// request draws one request of scenario sc at level index li, asking case
// pos mod cases.
func (w *synthWorld) request(rng *rand.Rand, o synthSide, sc synthScenario, li int, drift float64, pos int, start time.Time) sample.Sample {
	ch := o.change
	caseIdx := pos % sc.cases
	s := sample.Sample{Scenario: sc.name, Endpoint: "sim", Model: "sim", Case: fmt.Sprintf("%s-%03d", sc.name, caseIdx+1),
		FixtureCases: sc.cases, Start: start.Add(time.Duration(pos) * time.Second), Finish: "stop", Status: 200}
	ttft := sc.ttft * (1 + 0.05*float64(li)) * math.Exp(drift+o.sigma*rng.NormFloat64())
	if ch.on(sc.name) {
		if ch.scale > 0 {
			ttft *= ch.scale
		}
		if ch.tailFrac > 0 && rng.Float64() < ch.tailFrac {
			ttft *= ch.tailK
		}
	}
	if rng.Float64() < 0.005 {
		s.ErrKind, s.Finish, s.Status = sample.KindServerError, "server_error", 503
		s.Total = ms(ttft / 10)
		return s
	}
	s.TTFT, s.TTFA = ms(ttft), ms(ttft)
	total := ttft
	s.ITL = &sample.Hist{}
	for range sc.tokens - 1 {
		g := sc.tpot * math.Exp(0.1*rng.NormFloat64())
		s.ITL.Add(ms(g))
		total += g
	}
	s.Total = ms(total)
	s.OutputTokens, s.Chunks, s.TokenSource = sc.tokens, sc.tokens, sample.TokensUsage
	q := &sample.Quality{Case: s.Case, MatchChecked: true}
	kind := w.kind[sc.name][caseIdx]
	if ch.on(sc.name) && kind == 'r' && brokenCase(w.kind[sc.name], caseIdx, ch.broken) {
		kind = 'w'
	}
	q.Matched = kind == 'r' || kind == 'c' && rng.Float64() < 0.5
	if sc.structd {
		q.JSONChecked, q.SchemaChecked = true, true
		q.JSONValid = w.json[sc.name][caseIdx] == 'r' || rng.Float64() < 0.5
		q.SchemaValid = q.JSONValid
	}
	s.Quality = q
	return s
}

// brokenCase reports whether case i is among the first n right cases.
func brokenCase(kinds []byte, i, n int) bool {
	seen := 0
	for j, k := range kinds {
		if k != 'r' {
			continue
		}
		if seen == n {
			return false
		}
		if j == i {
			return true
		}
		seen++
	}
	return false
}

func ms(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }

// tailK returns the factor by which a fraction frac of requests must slow
// down for the p95 of a lognormal of log-sd sigma to move by the factor
// target.
func tailK(sigma, frac, target float64) float64 {
	t := target * math.Exp(inference.NormQuantile(0.95)*sigma)
	surv := func(k float64) float64 {
		return (1-frac)*(1-inference.NormCDF(math.Log(t)/sigma)) + frac*(1-inference.NormCDF(math.Log(t/k)/sigma))
	}
	lo, hi := 1.0, 10.0
	for range 100 {
		m := (lo + hi) / 2
		if surv(m) < 0.05 {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}
