package stream_test

import (
	"context"
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
		Timeouts: stream.Timeouts{Headers: 5 * time.Second, Total: flood}})
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
	}
	assert.Equal(t, streams, st.Errors[sample.KindTimeoutTotal])
	t.Logf("%d chunks read in %v on %d streams; live heap peaked %.1f MB above its start", chunks, flood, streams, float64(peak)/1e6)
	// The flood is real: at least 100 000 chunks a second.
	assert.Greater(t, chunks, 100_000*int(flood/time.Second), "the flood was too slow to test anything")
	assert.Less(t, peak, uint64(32<<20), "memory grew with the flood")
}
