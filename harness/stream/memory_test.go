package stream_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// heapPeak samples the live heap every millisecond until stop is called,
// which returns the highest reading above the heap at the start.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(m); return m[0].Value.Uint64() }
	base := read()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if v := read(); v > peak {
				peak = v
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		if peak < base {
			return 0
		}
		return peak - base
	}
}

// TestFloodMemoryBounded: four streams flooded with token chunks as fast
// as the connection takes them, until the total timeout, with every sample
// written to a samples file and summarised. Memory must not grow with the
// number of chunks: what a request keeps is bounded whatever the endpoint
// sends.
func TestFloodMemoryBounded(t *testing.T) {
	const streams, flood = 4, 2 * time.Second
	cfg := sim.Default()
	cfg.Faults = map[string]float64{sim.FaultFlood: 1}
	_, url := sim.Start(t, cfg)
	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m",
		Timeouts: stream.Timeouts{Headers: 5 * time.Second, Total: flood}},
		// The answer kept is capped (1 MiB by default); a smaller cap
		// leaves the heap to what else a request keeps.
		stream.MaxContent(64<<10))
	defer c.CloseIdle()
	f, err := sample.Create(filepath.Join(t.TempDir(), "s.jsonl"), nil)
	require.NoError(t, err)
	defer f.Close()

	stop := heapPeak()
	samples := load.NewRunner(load.Sink(f.Write)).Run(context.Background(), c, hello(), load.Closed(streams), streams)
	st := stats.Summarize(samples, nil)
	peak := stop()

	chunks := 0
	for _, s := range samples {
		assert.Equal(t, sample.KindTimeoutTotal, s.ErrKind, s.Err)
		chunks += s.Chunks
		// The flood is real, and what the request kept does not grow
		// with it: its record, the answer (capped) aside, stays small.
		assert.Greater(t, s.Chunks, 10_000, "the flood was too slow to test anything")
		b, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Less(t, len(b)-len(s.Content), 16<<10, "a request's record grew with its %d chunks", s.Chunks)
	}
	assert.Equal(t, streams, st.Errors[sample.KindTimeoutTotal])
	t.Logf("%d chunks read in %v on %d streams; live heap peaked %.1f MB above its start", chunks, flood, streams, float64(peak)/1e6)
	assert.Less(t, peak, uint64(24<<20), "memory grew with the flood")
}
