package ollamatest

import (
	"context"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/ollama"
)

// NominalTokenTime is the tiny model's decode time per output token on an
// idle 2-core machine (observed 3–15 ms), which the latency bounds of the
// Ollama tests were set for.
const NominalTokenTime = 10 * time.Millisecond

// Slowdown measures how much slower than nominal the server decodes now —
// its own eval_duration / eval_count over a 16-token answer, the better of
// two — and returns it as a factor of at least 1, logged. The latency bounds
// of a test that measures this server multiply by it: on a CI machine shared
// with other jobs the model itself is slower, and the tests judge the
// pipeline (errors, streaming, structure, a breakdown that adds up), not the
// load other processes put on the CPU.
func (s *Server) Slowdown(t testing.TB) float64 {
	t.Helper()
	best := time.Duration(0)
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r, err := ollama.Chat(ctx, s.Host(), ollama.ChatRequest{Model: s.ModelName(), NumPredict: 16, Seed: 1,
			Messages: []ollama.Message{{Role: "user", Content: "Why is the sky blue?"}}})
		cancel()
		if err != nil || r.Server.EvalN == 0 {
			t.Fatalf("measuring the server's pace: %v (eval_count %d)", err, r.Server.EvalN)
		}
		if per := r.Server.Eval / time.Duration(r.Server.EvalN); best == 0 || per < best {
			best = per
		}
	}
	f := max(1, float64(best)/float64(NominalTokenTime))
	t.Logf("the server decodes at %v a token now (nominal %v): latency bounds × %.1f", best, NominalTokenTime, f)
	return f
}
