// Package server reads an inference server's own account of a run — what
// only the server sees: its queue, its batch, its KV cache, its
// preemptions and prefix-cache hits, its own TTFT and end-to-end
// histograms, its models' memory, its process's memory and CPU — so that
// a verdict can tell a slow network from a saturated scheduler, and a
// client and a server that disagree fail out loud.
//
// Its parts, in the order a reading flows:
//
//   - Sources (Source): Metrics scrapes a Prometheus /metrics in the text
//     format (vLLM, SGLang, TGI, llama.cpp; names.go maps their families
//     to the figures) on a connection of its own; the session adds
//     Ollama's /api/ps; Process reads the server's process tree from
//     Linux's /proc (FindListener finds it by its listening port).
//   - The exposition (expo.go) is filtered as it streams: the figures'
//     families kept, others sampled within MaxFamilies and MaxSeries,
//     the rest counted and dropped, so that a server with 100,000 series
//     costs bounded memory; what is kept is parsed by the Prometheus
//     project's own parser, github.com/prometheus/common/expfmt.
//   - A Watch reads every source once as a level's measured requests
//     start, every interval while they run and once after, each source
//     on its own goroutine with a timeout, so that a hanging /metrics
//     delays nothing; counters become increases (a restart counted from
//     0), and each Reading goes to the File (<run>.server.jsonl, one
//     line per reading, bounded by MaxLine) and into a Window.
//   - A Window makes the run's figures (stats.Server) from its readings,
//     the same whether they were just taken or read back from the file
//     (Read checks every line; Figures pools the runs of each level). A
//     figure whose readings failed or whose family vanished is not
//     measured, and says why in the figures' notes.
//
// A reading that fails is counted and shown; it is never an error of the
// run. What the figures mean is defined in docs/METRICS.md (server
// metrics); the metric table (harness/metric) holds their SLA keys and
// benchmark units, package objective judges them.
package server
