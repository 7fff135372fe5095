package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

// selectionConfig is three simulated endpoints: fast but sloppy (25%
// wrong), slow but accurate, and one slower and sloppier than both, each
// with a price. Latencies are short so that the suites run in seconds, and
// far enough apart for 40 requests to tell them apart.
const selectionConfig = `endpoints:
  fast:   {sim: "ttft=5ms,tpot=1ms,wrong=0.25", price: {input_per_mtok: 0.15, output_per_mtok: 0.60, currency: USD}}
  slow:   {sim: "ttft=30ms,tpot=1ms", price: {input_per_mtok: 0.50, output_per_mtok: 1.50, currency: USD}}
  sloppy: {sim: "ttft=60ms,tpot=1ms,wrong=0.3", price: {input_per_mtok: 2.00, output_per_mtok: 6.00, currency: USD}}
scenarios:
  chat:       {concurrency: [1], warmup: 0}
  extraction: {concurrency: [1], warmup: 0}
  summary:    {concurrency: [1], warmup: 0}
  batch:      {concurrency: [4], warmup: 0}
  tools:      {concurrency: [1], warmup: 0}
`

// reportEnv points the configuration at the SLA file text, whatever the
// caller's environment says.
func reportEnv(t *testing.T, text string) string {
	t.Helper()
	for _, k := range []string{config.EnvEndpoints, config.EnvSim, session.EnvChild, "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}
	return useConfig(t, text)
}

// selectionJSON is the part of `llmsla report -format json` this test reads.
type selectionJSON struct {
	Endpoints []struct {
		Name            string   `json:"name"`
		Model           string   `json:"model"`
		MeetsObjectives bool     `json:"meets_objectives"`
		Pareto          bool     `json:"pareto"`
		CostPer1k       *float64 `json:"cost_per_1k"`
		DominatedBy     []struct {
			Endpoint string   `json:"endpoint"`
			Better   []string `json:"better"`
		} `json:"dominated_by"`
		Scenarios []struct {
			Scenario string              `json:"scenario"`
			Figures  map[string]*float64 `json:"figures"`
		} `json:"scenarios"`
	} `json:"endpoints"`
	Recommendation struct {
		Endpoint *string `json:"endpoint"`
		Reason   string  `json:"reason"`
	} `json:"recommendation"`
}

// TestReportModelSelection runs the suites on three simulated endpoints
// with `llmsla bench`, then `llmsla report`: the slower and sloppier
// endpoint is dominated (by slow, at least), fast and slow are on the
// Pareto front, slow — the one meeting every objective — is recommended,
// cost matches a hand calculation from the samples' token counts, and the
// markdown fits a pull-request comment.
func TestReportModelSelection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suites on three simulated endpoints")
	}
	reportEnv(t, selectionConfig)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := runBench([]string{"-pkg", suites, "-bench", "Chat|Extraction|Summary|Batch|Tools", "-count", "1", "-n", "10", "-out", dir}, &out, &errOut)
	require.Equal(t, 1, code, "fast and sloppy miss their accuracy objective\nstdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	samples := filepath.Join(dir, "latest.samples.jsonl")
	assert.Contains(t, out.String(), "Model selection: 3 endpoints × 5 scenarios", "bench ends with the leaderboard")
	assert.Contains(t, out.String(), "Choose slow")

	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := runReport(append(args, samples), &stdout, &stderr)
		require.Equal(t, 0, code, "llmsla report %v: %s", args, stderr.String())
		return stdout.String()
	}
	var doc selectionJSON
	js := run("-format", "json")
	require.NoError(t, json.Unmarshal([]byte(js), &doc), js)
	t.Logf("recommendation: %s", doc.Recommendation.Reason)
	eps := map[string]int{}
	for i, e := range doc.Endpoints {
		eps[e.Name] = i
	}
	require.Len(t, eps, 3)
	fast, slow, sloppy := doc.Endpoints[eps["fast"]], doc.Endpoints[eps["slow"]], doc.Endpoints[eps["sloppy"]]

	assert.True(t, fast.Pareto, "fast: %+v", fast.DominatedBy)
	assert.True(t, slow.Pareto, "slow: %+v", slow.DominatedBy)
	assert.False(t, sloppy.Pareto)
	var by []string
	for _, d := range sloppy.DominatedBy {
		by = append(by, d.Endpoint)
	}
	assert.Contains(t, by, "slow", "slow is more accurate, faster and cheaper than sloppy:\n%s", js)
	assert.False(t, fast.MeetsObjectives)
	assert.True(t, slow.MeetsObjectives)
	require.NotNil(t, doc.Recommendation.Endpoint, doc.Recommendation.Reason)
	assert.Equal(t, "slow", *doc.Recommendation.Endpoint)
	assert.Len(t, slow.Scenarios, 5)
	assert.Equal(t, "sim", slow.Model)

	// Cost by hand: 1000 × mean over measured requests of (prompt × 0.50
	// + output × 1.50) / 1e6, from the token counts in the samples file.
	all, err := sample.Read(samples)
	require.NoError(t, err)
	var sum float64
	n := 0
	for _, s := range all {
		if s.Endpoint == "slow" && !s.Cold && !s.Warmup && s.OK() {
			require.Equal(t, sample.TokensUsage, s.TokenSource, "the simulator sends usage")
			require.Positive(t, s.PromptTokens)
			sum += (float64(s.PromptTokens)*0.50 + float64(s.OutputTokens)*1.50) / 1e6
			n++
		}
	}
	require.Equal(t, 50, n)
	require.NotNil(t, slow.CostPer1k)
	assert.InEpsilon(t, 1000*sum/float64(n), *slow.CostPer1k, 1e-9)

	// Runs of different endpoints pool: the samples split into one file
	// per endpoint give the same report as the whole file.
	var files []string
	for _, name := range []string{"fast", "slow", "sloppy"} {
		var buf bytes.Buffer
		for _, s := range all {
			if s.Endpoint == name {
				line, err := json.Marshal(s)
				require.NoError(t, err)
				buf.Write(append(line, '\n'))
			}
		}
		p := filepath.Join(t.TempDir(), name+".samples.jsonl")
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		files = append(files, p)
		// and the servers' readings of it beside, as the whole file has
		// them (they imply the ttft gap objective, judged as there)
		readings, err := os.ReadFile(filepath.Join(dir, "latest.server.jsonl"))
		require.NoError(t, err)
		var mine bytes.Buffer
		for _, l := range bytes.SplitAfter(readings, []byte("\n")) {
			var r struct{ Endpoint string }
			if json.Unmarshal(l, &r) == nil && r.Endpoint == name {
				mine.Write(l)
			}
		}
		require.NoError(t, os.WriteFile(strings.TrimSuffix(p, ".samples.jsonl")+".server.jsonl", mine.Bytes(), 0o644))
	}
	var pooled, stderr bytes.Buffer
	require.Equal(t, 0, runReport(append([]string{"-format", "json"}, files...), &pooled, &stderr), stderr.String())
	assert.JSONEq(t, js, pooled.String())

	md := run("-format", "markdown")
	assert.Less(t, strings.Count(md, "\n"), 70, "markdown (the provenance block, the board, and since intervals one line of them per endpoint) for 3 endpoints × 5 scenarios:\n%s", md)
	assert.Contains(t, md, "| endpoint | model | scenario |")

	csv := run("-format", "csv")
	assert.Equal(t, 1+3*6, strings.Count(csv, "\n"), csv) // a header, then per endpoint all and its 5 scenarios

	text := run()
	assert.Contains(t, text, "sloppy is dominated by")
	assert.Contains(t, text, "Pareto front over accuracy, ttft p95 and cost per 1k: fast and slow")

	page := filepath.Join(t.TempDir(), "report.html")
	stderr.Reset()
	require.Equal(t, 0, runReport([]string{"-format", "html", "-o", page, samples}, &bytes.Buffer{}, &stderr), stderr.String())
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	// The six of the board, and three of the simulators' /metrics over
	// time, read from the server file beside the samples.
	assert.Equal(t, 9, strings.Count(string(b), `<figure class="plot`))
	assert.Contains(t, string(b), `<figure class="plot wide" id="server-queue">`)
}

// TestReportUsage: bad flags, a missing or empty file and a configuration
// error are exit 2, said on stderr, and nothing on stdout.
func TestReportUsage(t *testing.T) {
	reportEnv(t, "endpoints:\n  sim: {sim: \"\"}\n")
	empty := filepath.Join(t.TempDir(), "empty.samples.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	t.Chdir(t.TempDir()) // no results/ here
	cases := map[string]struct {
		args []string
		want string
	}{
		"bad format":       {[]string{"-format", "pdf", empty}, `-format "pdf": want text, markdown, json, csv, html`},
		"bad prefer":       {[]string{"-prefer", "speed", empty}, `-prefer "speed": want cost or latency`},
		"default missing":  {nil, filepath.Join("results", "latest.samples.jsonl")},
		"empty file":       {[]string{empty}, empty + ": no samples recorded"},
		"not a samples fi": {[]string{"/nonexistent.jsonl"}, "/nonexistent.jsonl"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 2, runReport(tc.args, &stdout, &stderr))
			assert.Contains(t, stderr.String(), tc.want)
			assert.Empty(t, stdout.String())
		})
	}
	t.Run("price misspelt", func(t *testing.T) {
		p := reportEnv(t, "endpoints:\n  sim:\n    sim: \"\"\n    price: {input_per_mtok: 1, output_per_mtk: 2, currency: USD}\n")
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, runReport([]string{empty}, &stdout, &stderr))
		assert.Contains(t, stderr.String(), p+":4: endpoints.sim.price.output_per_mtk: unknown key (allowed: input_per_mtok, output_per_mtok, per_hour, currency)")
	})
}

// TestReportRefusesDoubleCounting: a file given twice would count its
// requests twice; the report refuses it as llmsla verdict does.
func TestReportRefusesDoubleCounting(t *testing.T) {
	reportEnv(t, "endpoints:\n  sim: {sim: \"\"}\n")
	p := filepath.Join(t.TempDir(), "a.samples.jsonl")
	line, err := json.Marshal(sample.Sample{Scenario: "chat", Endpoint: "sim", Run: "r1", Seq: 1, Start: time.Now(), Finish: "stop"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, append(line, '\n'), 0o644))
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, runReport([]string{p, p}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "would count its requests twice")
}

// TestReportRefusesMisspeltScenario: a scenario the SLA file names that the
// files do not hold (and no preset has) is a misspelling whose objectives
// would judge nothing; the report refuses it as llmsla verdict does,
// naming the key.
func TestReportRefusesMisspeltScenario(t *testing.T) {
	p := reportEnv(t, "endpoints:\n  sim: {sim: \"\"}\nscenarios: {chta: {sla: {ttft_p95_ms: 50}}}\n")
	f := filepath.Join(t.TempDir(), "a.samples.jsonl")
	line, err := json.Marshal(sample.Sample{Scenario: "chat", Endpoint: "sim", Run: "r1", Seq: 1, Start: time.Now(), Finish: "stop"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, append(line, '\n'), 0o644))
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, runReport([]string{f}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), p+":3: scenarios.chta: no such scenario")
	assert.Empty(t, stdout.String())
}
