// Package sim is llmsla's built-in OpenAI-compatible endpoint: a streaming
// chat-completions simulator that is also the ground truth for timing tests.
//
// A Server (New, or Start in tests) answers POST /v1/chat/completions, with
// and without stream, GET /v1/models and GET /metrics. Its parts:
//
//   - Config is the endpoint: a latency model (TTFT, prefill per prompt
//     word, TPOT, lognormal jitter, slowdown with load, a Scale to fake a
//     regression), SSE framing quirks (role chunk, empty content, ": ping"
//     keep-alives, CRLF, reasoning tokens, no usage, no [DONE], JSON spread
//     over several data: lines), faults, answer quality and usage that
//     disagrees with the stream (usage_off=N:p). ParseSpec reads
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
//   - Agents (tools.go): a request that offers tools is answered with
//     function calls — those Answers.AddTools expects for its question
//     (its last user message) at its agent step (the runs of tool
//     results after that message), else a call of the first tool with
//     the arguments its schema requires — streamed in one vendor's
//     framing (tools=openai|vllm|whole|noindex|noindex_fragments: OpenAI's
//     fragments, vLLM's with the empty repeat in its finish chunk,
//     Ollama's and Gemini's whole calls, Gemini's fragments without
//     index), wrong or not JSON at seeded rates (tool_wrong, tool_badjson).
//     After the last step's results the model answers with text.
//   - Conversations: the prompt is the whole history (every message's
//     words, an assistant's tool calls included), so prefill and TTFT
//     grow with it; the answer is chosen by the last user message.
//   - The prefix cache (cache.go, cache=N): 16-token blocks hashed in
//     chain, an LRU of N blocks; cached tokens cost no prefill and show
//     in usage.prompt_tokens_details.cached_tokens (absent without a
//     cache, as from servers that have none).
//   - /metrics (metrics.go): vLLM's families, names and types (running,
//     waiting, KV usage, prefix-cache queries and hits, preemptions,
//     token counters, request_success by finished_reason, the TTFT and
//     end-to-end histograms with vLLM's buckets), from the same truth,
//     in bounded memory; Metrics and Scrapes are the truth a scraper is
//     held to. Faults make it lie: metrics_lie (a TTFT factor),
//     metrics_foreign (requests no client sent), metrics_vanish (a
//     family gone mid-run), metrics_hang, metrics_series (many series).
//   - Truth records, per request, the instants the server wrote headers,
//     the first token, the first answer token and the end, on the process's
//     monotonic clock, with the queue wait, the drift factor and the token
//     counts (reasoning apart), the prompt's cached and prefilled tokens,
//     and the tool calls sent with the instants of their first delta and
//     of their finish; TPOT and AnswerTPOT derive METRICS.md's
//     tpot from them. An in-process client's TTFT, TTFA, total and TPOT
//     must match them within scheduling noise; that is how the harness's
//     own measurements are tested.
//
// Each request runs on its handler goroutine alone, with one reused timer
// and buffer; the server lock is held only to register and record a
// request, to take and give back a slot, to count it running or to copy
// the account a scrape writes, never while sleeping or writing (the prefix
// cache has a lock of its own), so hundreds of concurrent streams keep
// their timing. Every wait watches the
// request context: when the client leaves, the handler returns and gives
// back its slot (see InFlight, Slots and WaitIdle).
package sim
