package load_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestEverySampleHasT0: a request that fails before it is sent (a Doer
// that returns no t0) still gets the time it was asked for, so its sample
// is written whole and the samples file reads back.
func TestEverySampleHasT0(t *testing.T) {
	failing := load.DoerFunc(func(context.Context, stream.Request) sample.Sample {
		var s sample.Sample
		s.Fail(&sample.RequestError{Kind: sample.KindOther, Message: "encoding request"})
		return s
	})
	src := load.SourceFunc(func(int) load.Prompt { return load.Prompt{} })
	before := time.Now()
	for _, s := range load.NewRunner().Run(context.Background(), failing, src, load.Closed(1), 3) {
		if s.Start.Before(before) || s.Start.After(time.Now()) || s.Offset < 0 {
			t.Errorf("seq %d: t0 %v, offset %v; want the time it was asked", s.Seq, s.Start, s.Offset)
		}
	}
}
