package sample_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sample"
)

// A samples file with a provenance record on its first line reads as
// before — every reader gets the same samples — and the record reads back
// whole, from the Scanner and from ReadProvenance.
func TestProvenanceRecordRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.samples.jsonl")
	prov := sample.Provenance{}
	prov.Set("sha256:4f2a", "endpoint", "Prod EU", "model", "digest")
	prov.Set("go1.24.0", "client", "go")
	require.NoError(t, sample.CreateWithProvenance(p, prov, nil))
	require.Error(t, sample.CreateWithProvenance(p, prov, nil), "an existing file is not overwritten")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(realLine + "\n" + strings.Replace(realLine, `"seq":3`, `"seq":4`, 1) + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	ss, err := sample.Read(p)
	require.NoError(t, err)
	assert.Len(t, ss, 2, "the record is not a sample")
	all, _, err := sample.ReadAll([]string{p}, false)
	require.NoError(t, err)
	assert.Len(t, all, 2)
	got, err := sample.ReadProvenance([]string{filepath.Dir(p)})
	require.NoError(t, err)
	assert.Equal(t, sample.Provenance{"endpoint.prod_eu.model.digest": "sha256:4f2a", "client.go": "go1.24.0"}, got)
	assert.Equal(t, "client.go: go1.24.0\nendpoint.prod_eu.model.digest: sha256:4f2a\n", got.Lines())
}

// TestProvenanceRecordChecked: a record is read bounded and checked as a
// sample is — a key benchfmt would not read, a value that would forge a
// line, one anywhere but the first line — each an error at file:line.
func TestProvenanceRecordChecked(t *testing.T) {
	long := strings.Repeat("x", sample.MaxProvenanceValue+1)
	keys := make([]string, sample.MaxProvenanceKeys+1)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":"v"`, i)
	}
	many := `{"provenance":{` + strings.Join(keys, ",") + `}}`
	cases := map[string]struct{ body, want string }{
		"upper-case key":     {`{"provenance":{"Model":"x"}}`, `:1: provenance: key "Model" (allowed: a–z first`},
		"key with a space":   {`{"provenance":{"model id":"x"}}`, `:1: provenance: key "model id"`},
		"key with a colon":   {`{"provenance":{"model:id":"x"}}`, `:1: provenance: key "model:id"`},
		"value with newline": {`{"provenance":{"model":"x\nBenchmarkFake 1 1 ns/op"}}`, `:1: provenance: model: "x\nBenchmarkFake 1 1 ns/op" holds a control character`},
		"empty value":        {`{"provenance":{"model":""}}`, `:1: provenance: model: "" is empty`},
		"padded value":       {`{"provenance":{"model":" x"}}`, `:1: provenance: model: " x" has spaces around it`},
		"value too long":     {`{"provenance":{"model":"` + long + `"}}`, `:1: provenance: model: 513 bytes (allowed: at most 512)`},
		"too many keys":      {many, `:1: provenance: 4097 keys (allowed: at most 4096)`},
		"not an object":      {`{"provenance":["x"]}`, `:1: provenance record: json: cannot unmarshal array`},
		"unknown field":      {`{"provenance":{"a":"b"},"scenario":"chat"}`, `:1: provenance record: json: unknown field "scenario"`},
		"after a sample":     {realLine + "\n" + `{"provenance":{"a":"b"}}`, `:2: a provenance record after the first line`},
		"a second one":       {`{"provenance":{"a":"b"}}` + "\n" + `{"provenance":{"a":"c"}}`, `:2: a provenance record after the first line`},
		"null record":        {`{"provenance":null}`, `:1: provenance record: no "provenance" object`},
		"two values, a line": {`{"provenance":{"a":"b"}} {"provenance":{"a":"b"}}`, `:1: provenance record: more than one JSON value`},
	}
	dir := t.TempDir()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".samples.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(tc.body+"\n"+realLine+"\n"), 0o644))
			_, err := sample.Read(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p+tc.want)
			_, _, err = sample.ReadAll([]string{p}, true)
			assert.ErrorContains(t, err, p+":")
		})
	}
}

// Set writes what a server sent as a value a record may hold: one
// printable line, trimmed, cut at MaxProvenanceValue.
func TestProvenanceSet(t *testing.T) {
	p := sample.Provenance{}
	p.Set("  llama\x1b[2J.cpp\n ", "endpoint", "a", "server", "name")
	p.Set(strings.Repeat("é", 400), "endpoint", "a", "model", "id")
	p.Set("", "endpoint", "a", "model", "digest")
	assert.Equal(t, `llama\x1b[2J.cpp\n`, p["endpoint.a.server.name"])
	assert.LessOrEqual(t, len(p["endpoint.a.model.id"]), sample.MaxProvenanceValue)
	assert.True(t, strings.HasSuffix(p["endpoint.a.model.id"], "é…"), "cut on a rune boundary")
	assert.NotContains(t, p, "endpoint.a.model.digest", "unknown is absent, never empty")
	assert.NoError(t, p.Check())
}

// Observe says which models and fingerprints answered, and whether they
// changed during the run; Merge says where pooled runs differ.
func TestObserveAndMerge(t *testing.T) {
	ss := []sample.Sample{
		{Endpoint: "prod", ResponseModel: "gpt-4o-2024-08-06", SystemFingerprint: "fp_1"},
		{Endpoint: "prod", ResponseModel: "gpt-4o-2024-08-06", SystemFingerprint: "fp_2"},
		{Endpoint: "prod", ResponseModel: "gpt-4o-2024-11-20", SystemFingerprint: "fp_2"},
		{Endpoint: "local", ResponseModel: "tiny"},
	}
	got := sample.Observe(ss)
	assert.Equal(t, sample.Provenance{
		"endpoint.prod.response.model":              "gpt-4o-2024-08-06 → gpt-4o-2024-11-20 (changed during the run)",
		"endpoint.prod.response.system_fingerprint": "fp_1 → fp_2 (changed during the run)",
		"endpoint.local.response.model":             "tiny",
	}, got)
	m := sample.Merge(sample.Provenance{"a": "1", "b": "2"}, sample.Provenance{"a": "1", "b": "3"})
	assert.Equal(t, sample.Provenance{"a": "1", "b": "2 | 3 (differs between the files pooled)"}, m)
	assert.Nil(t, sample.Merge())
}
