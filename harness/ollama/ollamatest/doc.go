// Package ollamatest runs a real, local LLM endpoint for tests: an `ollama
// serve` process on a free loopback port, serving the tiny random-weight
// Llama model the repository keeps in fixtures/models, under the name
// "tiny".
//
// The parts fit like this:
//
//   - [Binary] and [Model] find the ollama binary (built by
//     .ci/install-ollama.sh) and the checksummed test model.
//   - [Start] gives one test its own server, stopped by t.Cleanup; [Shared]
//     gives a whole test package one server, stopped by [StopShared] from
//     TestMain. When the binary or model is missing both skip the test,
//     except under CI=true, where they fail it: CI must not skip the
//     real-endpoint tests.
//   - [Server.BaseURL] is the OpenAI-compatible root that the rest of the
//     harness measures; package ollama reads the server's own timings.
//
// Nothing may outlive the test binary, even when it is killed by a test
// timeout: the server runs in its own process group with Pdeathsig, and a
// watchdog shell in that group kills the whole group (including the model
// runner that ollama forks, which has no Pdeathsig of its own) as soon as the
// test process goes away.
package ollamatest
