package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/sim"
)

// TestWatchHangingSource: a source that never answers delays neither
// Begin (the measured requests start at once) nor End beyond one
// timeout, while another source is read on; each hung reading is a
// failed one, counted, and the run's figures are still given.
func TestWatchHangingSource(t *testing.T) {
	hang := SourceFunc(SourceMetrics, func(ctx context.Context, rd *Reading) error {
		<-ctx.Done()
		return ctx.Err()
	})
	var mu sync.Mutex
	calls := 0
	ps := SourceFunc(SourceOllama, func(ctx context.Context, rd *Reading) error {
		mu.Lock()
		calls++
		mu.Unlock()
		rd.Series = []Series{{Name: OllamaSize, Type: Gauge, Labels: `model="m"`, Value: 5e6}}
		return nil
	})
	var sunk []*Reading
	every := 50 * time.Millisecond
	w := NewWatch([]Source{hang, ps}, every, Labels{Scenario: "chat", Endpoint: "e", Level: "concurrency=1"}, func(rd *Reading) {
		sunk = append(sunk, rd)
	})
	start := time.Now()
	w.Begin("r.1")
	assert.Less(t, time.Since(start), 10*time.Millisecond, "Begin waits for no reading")
	time.Sleep(600 * time.Millisecond)
	end := time.Now()
	srv := w.End(12)
	took := time.Since(end)
	t.Logf("End took %v (timeout %v); %d readings, %d failed: %v", took, Timeout(every), srv.Readings, srv.Failed, srv.Errors)
	assert.Less(t, took, Timeout(every)+200*time.Millisecond, "End waits one timeout at most")
	require.NotNil(t, srv)
	assert.Equal(t, 5e6, srv.ModelMem, "the other source was read on")
	mu.Lock()
	assert.GreaterOrEqual(t, calls, 8, "read every 50 ms over 600 ms, whatever the other source did")
	mu.Unlock()
	assert.GreaterOrEqual(t, srv.Failed, 2, "the hung readings before and during, and after")
	assert.Contains(t, srv.Errors, "metrics before: context deadline exceeded")
	assert.Equal(t, 12, srv.Sent)
	phases := map[Phase]int{}
	for _, rd := range sunk {
		phases[rd.Phase]++
		assert.Equal(t, "r.1", rd.Run)
	}
	assert.Equal(t, 2, phases[Before])
	assert.Equal(t, 2, phases[After])
}

// TestWatchNotBegun: a run that sent no measured request (cancelled in
// its warm-up) has no server figures.
func TestWatchNotBegun(t *testing.T) {
	w := NewWatch([]Source{NewProcess(1)}, time.Second, Labels{}, nil)
	assert.Nil(t, w.End(0))
}

// TestWatchSimulator: a watch of the simulator's /metrics reads it before,
// during and after, and its increases count the requests sent between.
func TestWatchSimulator(t *testing.T) {
	srv, url := sim.Start(t, sim.Default())
	u, err := MetricsURL(url)
	require.NoError(t, err)
	m := NewMetrics(u, nil)
	defer m.Close()
	require.NoError(t, Probe(context.Background(), m, time.Second))
	w := NewWatch([]Source{m}, 20*time.Millisecond, Labels{Scenario: "chat", Endpoint: "sim"}, nil)
	w.Begin("r.1")
	for range 5 {
		chat(t, url)
	}
	srv.WaitIdle(time.Second)
	figs := w.End(5)
	require.NotNil(t, figs)
	assert.Equal(t, 5.0, figs.Requests)
	assert.Equal(t, 5.0, figs.TTFT.N())
	assert.Zero(t, figs.Failed)
}

// chat sends one streamed request to the simulator at url and reads it
// to its end.
func chat(t *testing.T, url string) {
	t.Helper()
	body := `{"model":"sim","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
}
