package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// recorder is a testing.TB that keeps errors instead of failing, so a test
// can check that a golden mismatch is reported.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

// TestGoldenRoundTrip: -update writes, the next run passes, a changed answer
// fails with a diff and a .got file.
func TestGoldenRoundTrip(t *testing.T) {
	cfg := &config.Config{Source: "test", Endpoints: []stream.Endpoint{{Name: "sim", Model: "sim", Simulated: true}},
		Scenarios: config.Presets(), SimSpecs: map[string]string{"sim": "ttft=1ms,tpot=0s"}}
	s, err := session.New(cfg, session.Run{}, session.Options{})
	require.NoError(t, err)
	defer s.Close()
	sc := Scenario{Name: "extraction", Fixture: "fixtures/extract.jsonl", Structured: true}
	src, err := s.Source(sc)
	require.NoError(t, err)
	run := func() []sample.Sample {
		// A whole pass over the fixture, so that every run asks the same
		// cases (runs walk the fixture where the last one stopped).
		samples, err := s.Measure(context.Background(), session.Cell{Scenario: sc.Name, Endpoint: cfg.Endpoints[0], Settings: cfg.Scenario(sc.Name, "sim"), Level: config.Level{Pacer: load.Closed(2)}, Fixture: src}, src.Len())
		require.NoError(t, err)
		return samples
	}
	dir := t.TempDir()

	assert.Equal(t, 0, CheckGolden(t, dir, "sim", run(), true), "update writes")
	files, _ := filepath.Glob(filepath.Join(dir, "sim", "*.golden"))
	assert.NotEmpty(t, files)

	assert.Equal(t, 0, CheckGolden(t, dir, "sim", run(), false), "the next run passes")

	wrong, err := sim.ParseSpec("ttft=1ms,tpot=0s,wrong=1")
	require.NoError(t, err)
	s.SetSim("sim", wrong)
	rec := &recorder{TB: t}
	bad := CheckGolden(rec, dir, "sim", run(), false)
	assert.Positive(t, bad, "a changed answer fails")
	require.NotEmpty(t, rec.errs)
	assert.Contains(t, rec.errs[0], "differs")
	assert.Contains(t, rec.errs[0], "+ ", "shows a diff")
	gots, _ := filepath.Glob(filepath.Join(dir, "sim", "*.golden.got"))
	assert.Len(t, gots, bad, "a .got beside each mismatch")
	for _, g := range gots {
		b, err := os.ReadFile(g)
		require.NoError(t, err)
		assert.NotEmpty(t, b)
	}
}
