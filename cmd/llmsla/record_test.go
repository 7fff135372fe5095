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
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// recordedSLA is the SLA file a recorded run was measured under: a price,
// an objective its 20 ms answers miss (the presets' would be met), and a
// gate: section.
const recordedSLA = "endpoints:\n  fast: {sim: \"\", price: {input_per_mtok: 1, output_per_mtok: 2, currency: USD}}\n" +
	"scenarios:\n  chat: {sla: {ttft_p95_ms: 10}}\ngate:\n  alpha: 0.01\n"

// runUnder writes a run of chat on fast, measured under the SLA file sla
// (its samples' provenance record names it, as bench writes it), and
// returns its samples file.
func runUnder(t *testing.T, sla string) string {
	t.Helper()
	cfg, err := config.LoadFile(sla)
	require.NoError(t, err)
	prov := sample.Provenance{"client.go": "go1.26"}
	cfg.Record(prov)
	var b bytes.Buffer
	b.Write(prov.Record())
	for i := range 20 {
		line, err := json.Marshal(sample.Sample{Scenario: "chat", Endpoint: "fast", Level: "concurrency=1", Run: "r", Seq: i, Start: time.Now(),
			TTFT: 20 * time.Millisecond, TTFA: 20 * time.Millisecond, Total: 30 * time.Millisecond, OutputTokens: 3, PromptTokens: 10,
			TokenSource: sample.TokensUsage, Finish: "stop"})
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), "20260506T070809Z.samples.jsonl")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}

// TestJudgedAgainstTheRecord (issue 29, item 9): without LLMSLA_CONFIG,
// llmsla report, verdict and gate take the endpoints, prices, objectives
// and gate: section from the SLA file the run recorded — they used to
// say "config: built-in simulator", cost "not measured: no price", and
// judge by the presets; -config judges against another file.
func TestJudgedAgainstTheRecord(t *testing.T) {
	simEnv(t, "")
	sla := writeConfig(t, recordedSLA)
	samples := runUnder(t, sla)

	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, runReport([]string{"-format", "json", samples}, &out, &errOut), errOut.String())
	var doc selectionJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	require.Len(t, doc.Endpoints, 1)
	assert.NotNil(t, doc.Endpoints[0].CostPer1k, "priced at the recorded file's price")
	out.Reset()
	require.Equal(t, exitOK, runReport([]string{"-format", "html", samples}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "<dt>config</dt><dd>"+sla+"</dd>")

	out.Reset()
	assert.Equal(t, exitViolated, runVerdict([]string{samples}, &out, &errOut), "the recorded ttft_p95_ms 10:\n%s%s", &out, &errOut)
	assert.Contains(t, out.String(), "ttft p95 20.0 ms > 10 ms")
	presets := writeConfig(t, "endpoints:\n  fast: {sim: \"\"}\n")
	out.Reset()
	assert.Equal(t, exitOK, runVerdict([]string{"-config", presets, samples}, &out, &errOut), "-config: the presets' 600 ms:\n%s%s", &out, &errOut)

	// The gate: NEW a copy of the committed baseline recorded under sla,
	// in both of its files.
	txt, err := os.ReadFile(golden)
	require.NoError(t, err)
	rec, err := os.ReadFile(recording.SamplesBeside(golden))
	require.NoError(t, err)
	cfg, err := config.LoadFile(sla)
	require.NoError(t, err)
	keys := sample.Provenance{}
	cfg.Record(keys)
	js, err := json.Marshal(keys)
	require.NoError(t, err)
	newTxt := filepath.Join(t.TempDir(), "new.txt")
	require.NoError(t, os.WriteFile(newTxt, []byte(strings.Replace(string(txt), "\ncount: ", "\n"+keys.Lines()+"count: ", 1)), 0o644))
	require.NoError(t, os.WriteFile(recording.SamplesBeside(newTxt), []byte(strings.Replace(string(rec), `{"provenance":{`, `{"provenance":{`+strings.Trim(string(js), "{}")+",", 1)), 0o644))
	useConfig(t, "endpoints:\n  sim: {sim: \"\"}\n") // the shell's: no gate: section
	out.Reset()
	errOut.Reset()
	code := runGate([]string{"-allow-blind", "*", golden, newTxt}, &out, &errOut)
	assert.NotEqual(t, exitBroken, code, "%s%s", &out, &errOut)
	assert.Contains(t, out.String(), "α=0.01", "the recorded gate: section")
	assert.Contains(t, errOut.String(), "judged against "+sla+", the SLA file the run was measured under")
}
