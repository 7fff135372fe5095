// Package stream sends one streaming chat completion to an
// OpenAI-compatible endpoint and times it into a [sample.Sample]: the first
// stage of llmsla's pipeline.
//
// [Client.Do] builds the request from go-openai's types (with an explicit
// temperature 0, which go-openai drops), sends it with connection phases
// traced through net/http/httptrace (to a plain http:// endpoint with no
// proxy over h1.go's lean path, the request's goroutine reading its own
// connection; else through net/http's transport), and reads the server-sent events
// itself: go-openai's reader returns io.EOF both after [DONE] and on a cut
// connection, sees only one spelling of an error event, and buffers lines
// without bound, each of which would hide a failure this harness must
// count. The body is split into complete lines only (a line cut by the
// network is never decoded: the cut is the error), lines are assembled
// into events as the SSE spec says (data lines joined with "\n", an
// "event: error" is an error whatever its data), and each event is
// timestamped when the blank line that ends it is read, before it is
// decoded (a reflection-free decoder for the usual chunk shapes, checked
// against encoding/json by a fuzz test).
//
// Servers differ in what they stream, and testdata/vendors keeps one
// recorded stream of each shape read (TestVendorShapes replays them):
// content is a string or an array of typed parts (Magistral's thinking
// and text parts); tool calls come as fragments by index, as whole calls
// with or without an index, or as one object (TGI 2), and are assembled
// into the sample's ToolCalls (toolAssembler says how), a delta that
// brings no new name or argument bytes being no token; usage may be in
// x_groq (Groq), with cached tokens in prompt_tokens_details, DeepSeek's
// prompt_cache_hit_tokens or llama.cpp's timings (unknown, nil, when none
// says); reasoning a server hides but counts in total_tokens alone
// (Gemini) is inferred; finish_reason content_filter is its own error
// kind. The response's model and system_fingerprint are kept, for
// provenance.
//
// A failed request is never an error return: the sample carries its
// [sample.ErrorKind], classified from the status, the transport error, the
// timeout that fired, or what the stream said.
package stream
