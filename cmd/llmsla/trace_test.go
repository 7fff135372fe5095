package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/llmsla/llmsla/harness/load"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sample"
)

// prodLog writes three hours of a chat application's request log from
// 2026-11-30T09:00Z, as the seed's structlog example logs them (JSON, an
// ISO timestamp), n requests an hour, TTFT lognormal around 300 ms; the
// hour starting at slow has its TTFTs multiplied by factor. A few lines
// are other events, and one request an hour failed.
func prodLog(t *testing.T, n int, slow string, factor float64, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var b strings.Builder
	b.WriteString(`{"event": "startup", "timestamp": "2026-11-30T08:59:59Z", "level": "info"}` + "\n")
	for h := range 3 {
		hour := start.Add(time.Duration(h) * time.Hour)
		f := 1.0
		if hour.Format("2006-01-02T15:04Z") == slow {
			f = factor
		}
		for i := range n {
			at := hour.Add(time.Duration(float64(i) / float64(n) * float64(time.Hour)))
			if i == n/2 {
				fmt.Fprintf(&b, `{"event": "llm_latency", "endpoint": "chat", "model": "gpt-4o", "error": "upstream 503", "timestamp": %q}`+"\n", at.Format(time.RFC3339Nano))
				continue
			}
			ttft := 300 * math.Exp(0.25*r.NormFloat64()) * f
			tpot := 20 + 4*r.NormFloat64()
			tokens := 50 + r.IntN(100)
			fmt.Fprintf(&b, `{"event": "llm_latency", "endpoint": "chat", "model": "gpt-4o", "ttft_ms": %.1f, "tpot_ms": %.1f, "output_tokens": %d, "prompt_tokens": %d, "total_ms": %.1f, "timestamp": %q, "level": "info"}`+"\n",
				ttft, tpot, tokens, 200+r.IntN(800), ttft+tpot*float64(tokens), at.Format(time.RFC3339Nano))
		}
	}
	p := filepath.Join(t.TempDir(), "prod.log.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVerdictLog: production's log judged by the presets' chat SLA (ttft
// p95 ≤ 600 ms) hour by hour: an hour twice as slow fails, named with
// its objective, and exit 1; the same log without it passes, exit 0.
func TestVerdictLog(t *testing.T) {
	simEnv(t, "")
	cases := map[string]struct {
		factor float64
		code   int
		want   []string
	}{
		"slow hour": {2, 1, []string{"window=2026-11-30T10:00Z", "ttft p95", "> 600", "SLA violated."}},
		"no slow":   {1, 0, []string{"window=2026-11-30T09:00Z", "window=2026-11-30T10:00Z", "window=2026-11-30T11:00Z", "All SLAs met."}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			log := prodLog(t, 400, "2026-11-30T10:00Z", tc.factor, 7)
			var out, errOut bytes.Buffer
			junit := filepath.Join(t.TempDir(), "verdict.xml")
			code := runVerdict([]string{"-junit", junit, "-log", log}, &out, &errOut)
			if xml, err := os.ReadFile(junit); err != nil || !strings.Contains(string(xml), "window=2026-11-30T10:00Z") {
				t.Errorf("the JUnit file does not hold the windows (%v):\n%s", err, xml)
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tc.code, out.String(), errOut.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if tc.code == 1 {
				for _, line := range strings.Split(out.String(), "\n") {
					if strings.Contains(line, "ttft p95") && strings.Contains(line, "> 600") && !strings.Contains(line, "10:00Z") {
						t.Errorf("a violation outside the slow hour: %q", line)
					}
				}
			}
		})
	}
}

// TestVerdictLogErrors: a log line that is not a request is its file and
// line, exit 2; and so is a log without a request line.
func TestVerdictLogErrors(t *testing.T) {
	simEnv(t, "")
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"no ttft":    {`{"event": "llm_latency", "endpoint": "chat", "model": "m", "output_tokens": 3, "total_ms": 9, "timestamp": "2026-11-30T09:00:00Z"}`, ".jsonl:1: ttft_ms: missing"},
		"not json":   {`{"event": "llm_latency"` + "\n", ".jsonl:1: not a JSON object"},
		"bad time":   {"\n" + `{"event": "llm_latency", "endpoint": "chat", "model": "m", "ttft_ms": 1, "tpot_ms": 1, "output_tokens": 3, "timestamp": "noon"}`, ".jsonl:2: timestamp: \"noon\" is not a date and time"},
		"no request": {`{"event": "startup", "timestamp": "2026-11-30T09:00:00Z"}`, "no request line"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".jsonl")
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			if code := runVerdict([]string{"-log", p}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, errOut.String(), tc.want)
			}
		})
	}
}

// TestGateLogWindows: the gate between two hours of a log catches an
// hour with 20% slower TTFTs (exit 1), and passes two hours alike.
func TestGateLogWindows(t *testing.T) {
	simEnv(t, "")
	log := prodLog(t, 1500, "2026-11-30T10:00Z", 1.2, 11)
	for name, tc := range map[string]struct {
		base, new string
		code      int
	}{
		"+20% ttft": {"2026-11-30T09:00Z", "2026-11-30T10:00Z", 1},
		"alike":     {"2026-11-30T09:00Z", "2026-11-30T11:00Z", 0},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runGate([]string{"-log", log, tc.base, tc.new}, &out, &errOut)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tc.code, out.String(), errOut.String())
			}
			if tc.code == 1 && !strings.Contains(out.String(), "ttft") {
				t.Errorf("the report does not name ttft:\n%s", out.String())
			}
		})
	}
	var out, errOut bytes.Buffer
	if code := runGate([]string{"-log", log, "2026-11-30T09:00Z", "2026-12-01T09:00Z"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "no request in window 2026-12-01T09:00Z (windows: 2026-11-30T09:00Z, 2026-11-30T10:00Z, 2026-11-30T11:00Z)") {
		t.Errorf("a window the log lacks: exit %d, %s", code, errOut.String())
	}
}

// TestTraceCommands: analyze prints the shipped trace; synth halves its
// rows and doubles its speed (the same rate over half the time); from-log
// makes a trace of a log's successful requests that analyze reads.
func TestTraceCommands(t *testing.T) {
	simEnv(t, "")
	root, err := config.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	shipped := filepath.Join(root, "traces", "sample.mooncake.jsonl")
	analyze := func(t *testing.T, file string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := runTrace([]string{"analyze", file}, &out, &errOut); code != 0 {
			t.Fatalf("analyze %s: exit %d: %s", file, code, errOut.String())
		}
		return out.String()
	}
	a := analyze(t, shipped)
	for _, w := range []string{"rows 1200 over 1m59.9s: 10 req/s", "burstiness 0.5", "shared prefixes: 57.", "input tokens: mean 1029"} {
		if !strings.Contains(a, w) {
			t.Errorf("analyze lacks %q:\n%s", w, a)
		}
	}
	half := filepath.Join(t.TempDir(), "half.jsonl")
	var out, errOut bytes.Buffer
	// The share of rows is -subsample (bench's -keep counts runs); the
	// old spelling says the new one. Flags after the file are flags.
	if code := runTrace([]string{"synth", "-keep", "0.5", "-o", half, shipped}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-keep is now -subsample") {
		t.Errorf("synth -keep: exit %d: %s", code, errOut.String())
	}
	if code := runTrace([]string{"synth", "-speedup", "2", "-subsample", "0.5", shipped, "-seed", "3", "-o", half}, &out, &errOut); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, errOut.String())
	}
	m := regexp.MustCompile(`rows (\d+) over ([^:]+): ([\d.]+) req/s`).FindStringSubmatch(analyze(t, half))
	if m == nil {
		t.Fatal("no rows line")
	}
	rows, _ := strconv.Atoi(m[1])
	rate, _ := strconv.ParseFloat(m[3], 64)
	if math.Abs(float64(rows)-600) > 60 || math.Abs(rate-10) > 1.5 {
		t.Errorf("synth at speedup 2 keeping half: %d rows at %v req/s, want about 600 at 10", rows, rate)
	}
	log := prodLog(t, 100, "", 1, 5)
	made := filepath.Join(t.TempDir(), "from-log.jsonl")
	out.Reset()
	if code := runTrace([]string{"from-log", "-o", made, log}, &out, &errOut); code != 0 {
		t.Fatalf("from-log: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "wrote 297 rows") || !strings.Contains(out.String(), "left out 3 failed requests") {
		t.Errorf("from-log: %s", out.String())
	}
	if a := analyze(t, made); !strings.Contains(a, "rows 297 over ") {
		t.Errorf("the trace from the log:\n%s", a)
	}
}

// TestGateLogAgainstBench: a window of production's log against a
// recorded bench of the same model: the bench's endpoint (prod) is
// matched by the model it served, its one level by the window, and a
// window 20% slower than the bench fails the gate.
func TestGateLogAgainstBench(t *testing.T) {
	simEnv(t, "")
	r := rand.New(rand.NewPCG(3, 1))
	var b bytes.Buffer
	start := time.Now()
	for run := range 4 {
		for i := range 400 {
			// As prodLog draws a request, the bench's endpoint as fast.
			ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
			ttft, tpot, tokens := 300*math.Exp(0.25*r.NormFloat64()), 20+4*r.NormFloat64(), 50+r.IntN(100)
			s := sample.Sample{Scenario: "chat", Endpoint: "prod", Model: "gpt-4o", Level: "concurrency=4", Run: "r" + strconv.Itoa(run), Seq: i,
				Start: start, TTFT: ms(ttft), TTFA: ms(ttft), Total: ms(ttft + tpot*float64(tokens)), OutputTokens: tokens, Finish: "stop"}
			line, _ := json.Marshal(s)
			b.Write(append(line, '\n'))
		}
	}
	bench := filepath.Join(t.TempDir(), "run.samples.jsonl")
	if err := os.WriteFile(bench, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	log := prodLog(t, 1500, "2026-11-30T10:00Z", 1.2, 13)
	for name, tc := range map[string]struct {
		window string
		code   int
	}{"slower window": {"2026-11-30T10:00Z", 1}, "alike window": {"2026-11-30T09:00Z", 0}} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runGate([]string{"-log", log, bench, tc.window}, &out, &errOut)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tc.code, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), "chat/endpoint=gpt-4o") {
				t.Errorf("not matched by model:\n%s", out.String())
			}
		})
	}
}

// TestPlanTraceBeforeRun: llmsla bench's plan counts a replayed trace's
// requests exactly (its rows, each run; the probe, cold and warm-up),
// and the run sends what it announced.
func TestPlanTraceBeforeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	base, truth := countingSim(t, "ttft=2ms,tpot=0s")
	simEnv(t, "")
	useConfig(t, fmt.Sprintf("endpoints:\n  far: {base_url: %q, model: sim}\nscenarios:\n  chat: {trace: {file: traces/sample.mooncake.jsonl, end: 3s, speedup: [4, 8]}}\n", base))
	code, stdout, stderr, dir := bench(t, "-count", "2", "-q")
	require.Equal(t, exitOK, code, "%s\n%s", stdout, stderr)
	m := regexp.MustCompile(`total: (\d+) requests \((\d+) measured`).FindStringSubmatch(stdout)
	require.NotNil(t, m, "no plan total:\n%s", stdout)
	total, _ := strconv.Atoi(m[1])
	measured, _ := strconv.Atoi(m[2])
	samples, err := sample.Read(filepath.Join(dir, "latest.samples.jsonl"))
	require.NoError(t, err)
	assert.Len(t, samples, total-len(load.CalibrationPrompts()), "the samples the plan announced, but the token calibration's (not recorded)")
	n := 0
	for _, s := range samples {
		if s.Measured() {
			n++
			assert.NotNil(t, s.Asked, "a trace row's request")
			assert.Equal(t, sample.CacheNatural, s.Cache, "a trace's rows go without a marker: what was sent is natural, whatever the scenario's cache")
		}
	}
	assert.Equal(t, measured, n, "the measured requests the plan announced")
	assert.Len(t, truth(), total+2, "the run's requests, the preflight's and one probe of chat")
	assert.Contains(t, stdout, "trace (chat endpoint=far trace=sample.mooncake speedup=8): sent at")
}
