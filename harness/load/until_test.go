package load_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestUntil: a level told to stop once decided sends its warm-up, then
// measured requests until the condition holds, and no more than the
// requests in flight beyond it; the warm-up's samples are not asked.
func TestUntil(t *testing.T) {
	ok := load.DoerFunc(func(context.Context, stream.Request) sample.Sample {
		time.Sleep(time.Millisecond)
		return sample.Sample{Start: time.Now(), Finish: "stop"}
	})
	src := load.SourceFunc(func(int) load.Prompt { return load.Prompt{} })
	var measured atomic.Int64
	const workers, decided, ceiling = 4, 20, 500
	r := load.NewRunner(load.Warmup(8),
		load.Sink(func(s *sample.Sample) {
			if !s.Warmup {
				measured.Add(1)
			}
		}),
		load.Until(func() bool { return measured.Load() >= decided }))
	samples := r.Run(context.Background(), ok, src, load.Closed(workers), ceiling)
	var warm, meas int
	for _, s := range samples {
		if s.Warmup {
			warm++
		} else {
			meas++
		}
	}
	if warm != 8 || meas < decided || meas > decided+workers {
		t.Errorf("%d warm-up and %d measured requests; want 8 and %d to %d (decided, plus those in flight)", warm, meas, decided, decided+workers)
	}
}
