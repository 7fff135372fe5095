package ollama

import "time"

// Split divides one request's client-side TTFT by the server's own timings
// and sets the client's decode rate beside the server's.
//
// What the tiny model on ollama v0.11.4 showed (2 busy cores, loopback):
//
//   - NetworkQueue was 2–12 ms and never negative: load_duration and
//     prompt_eval_duration are spans inside the server's handling, which lies
//     inside the client's t0 → first chunk. The rest is HTTP, template,
//     tokenisation and scheduling. The tests allow 0 ≤ NetworkQueue ≤ 100 ms.
//   - Load is ~0.3–0.4 s on the first (cold) request and 7–20 ms when warm:
//     a warm load_duration is the scheduler handing over a loaded runner,
//     not zero.
//   - Chunks ≤ eval_count. They are equal unless a token ends inside a
//     multi-byte UTF-8 character: the runner holds such pieces back and
//     sends them with the next token (and drops an incomplete tail at the
//     limit), so a 64-token answer often arrives in 62–63 chunks, and short
//     ASCII-heavy answers match exactly.
//   - The client's Total exceeded the server's total_duration by 0.2–4 ms.
type Split struct {
	TTFT         time.Duration // client: t0 → first content chunk
	Load         time.Duration // server load_duration
	Prefill      time.Duration // server prompt_eval_duration
	NetworkQueue time.Duration // TTFT − Load − Prefill: everything the server did not time

	// ClientDecodeRate is (chunks − 1) / (total − ttft) in chunks per
	// second, the client's view; ClientDecodeOK is false when it is
	// undefined (one chunk or fewer), and the rate is then 0, not a value.
	ClientDecodeRate float64
	ClientDecodeOK   bool
	// ServerDecodeRate is eval_count / eval_duration in tokens per second,
	// the figure ollama itself prints with --verbose.
	ServerDecodeRate float64
	ServerDecodeOK   bool

	// CountMismatch says the client's content-chunk count differs from the
	// server's eval_count (see above for why it may), so the client rate
	// counts different units from the server rate.
	CountMismatch bool
}

// Breakdown splits r. It does no checking: a truncated or failed result gives
// a split of whatever was measured.
func Breakdown(r ChatResult) Split {
	s := Split{
		TTFT:          r.TTFT,
		Load:          r.Server.Load,
		Prefill:       r.Server.PromptEval,
		NetworkQueue:  r.TTFT - r.Server.Load - r.Server.PromptEval,
		CountMismatch: r.Chunks != r.Server.EvalN,
	}
	if d := r.Total - r.TTFT; r.Chunks > 1 && r.TTFT > 0 && d > 0 {
		s.ClientDecodeRate = float64(r.Chunks-1) / d.Seconds()
		s.ClientDecodeOK = true
	}
	if r.Server.EvalN > 0 && r.Server.Eval > 0 {
		s.ServerDecodeRate = float64(r.Server.EvalN) / r.Server.Eval.Seconds()
		s.ServerDecodeOK = true
	}
	return s
}
