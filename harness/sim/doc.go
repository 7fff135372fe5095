// Package sim is llmsla's built-in OpenAI-compatible endpoint: a streaming
// chat-completions simulator that is also the ground truth for timing tests.
//
// A Server (New, or Start in tests) answers POST /v1/chat/completions, with
// and without stream, and GET /v1/models. Its parts:
//
//   - Config is the endpoint: a latency model (TTFT, prefill per prompt
//     word, TPOT, lognormal jitter, slowdown with load, a Scale to fake a
//     regression), SSE framing quirks (role chunk, empty content, ": ping"
//     keep-alives, CRLF, reasoning tokens, no usage, no [DONE], JSON spread
//     over several data: lines), faults and answer quality. ParseSpec reads
//     the same from a one-line spec for the CLI
//     ("ttft=50ms,tpot=5ms,fault=truncated:0.05"); Config.String writes it.
//   - Capacity (slots.go): with Slots, at most that many requests generate
//     at once and the rest wait in arrival order, after their headers, so
//     a queue shows in time to first token. ServiceTime and Capacity give
//     the queue's arithmetic (a capacity search is checked against the
//     service times the simulator records, which include jitter).
//   - Drift: SlowAfter and SlowFactor slow TTFT and prefill for requests
//     that arrive late in a run, for soak tests.
//   - Faults (FaultKinds) cover every error kind the harness tells apart,
//     in the wire shapes real servers use for them, and the hostile shapes
//     a correct client must survive (hostile.go: lines cut in the middle,
//     floods, unasked gzip; echo.go: secrets sent back in an answer or an
//     error message, to test redaction). Each kind's comment says what a
//     correct client reports. Which request gets which fault, which answer
//     is wrong and every jitter draw depend only on Seed and the request's
//     arrival index, so a run replays exactly after Reset. The FaultHeader
//     request header forces one kind for one request.
//   - Truth records, per request, the instants the server wrote headers,
//     the first token, the first answer token and the end, on the process's
//     monotonic clock, with the queue wait, the drift factor and the token
//     counts (reasoning apart); TPOT and AnswerTPOT derive METRICS.md's
//     tpot from them. An in-process client's TTFT, TTFA, total and TPOT
//     must match them within scheduling noise; that is how the harness's
//     own measurements are tested.
//
// Each request runs on its handler goroutine alone, with one reused timer
// and buffer; the server lock is held only to register and record a
// request or to take and give back a slot, never while sleeping, so
// hundreds of concurrent streams keep their timing. Every wait watches the
// request context: when the client leaves, the handler returns and gives
// back its slot (see InFlight, Slots and WaitIdle).
package sim
