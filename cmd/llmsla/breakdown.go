package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/metric"
)

// breakdownLines writes, under the verdict table, where the TTFT of each
// Ollama benchmark went: the medians over its runs of the server figures
// the benchmarks reported (load-ms, prefill-ms, netq-ms, server-tok/s:
// the metric table's rows of kind Server). Nothing when the run has none.
func breakdownLines(w io.Writer, results string) {
	f, err := os.Open(results)
	if err != nil {
		return
	}
	defer f.Close()
	units := map[string]string{} // unit → row name
	for _, m := range metric.Table {
		if m.Kind == metric.Server {
			units[m.BenchUnit] = m.Name
		}
	}
	figs := map[string]map[string][]float64{} // benchmark → row name → values
	var order []string
	r := benchfmt.NewReader(f, results)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := string(res.Name.Full())
		for _, v := range res.Values {
			row, ok := units[v.Unit]
			if !ok {
				continue
			}
			if figs[name] == nil {
				figs[name] = map[string][]float64{}
				order = append(order, name)
			}
			figs[name][row] = append(figs[name][row], v.Value)
		}
	}
	for _, name := range order {
		g := figs[name]
		fmt.Fprintf(w, "breakdown (%s, median of %d runs): ttft = network+queue %s ms + load %s ms + prefill %s ms; server decode %s tok/s\n",
			benchLabel(name), len(g["load"]), metric.Num(median(g["netq"])), metric.Num(median(g["load"])),
			metric.Num(median(g["prefill"])), metric.Num(median(g["server_tok"])))
	}
}

// benchLabel reads BenchmarkChat/endpoint=local/concurrency=1-2 as
// "chat endpoint=local concurrency=1".
func benchLabel(full string) string {
	name := strings.TrimPrefix(full, "Benchmark")
	if i := strings.LastIndex(name, "-"); i > strings.LastIndex(name, "=") {
		name = name[:i] // the GOMAXPROCS suffix
	}
	parts := strings.Split(name, "/")
	parts[0] = strings.ToLower(parts[0])
	return strings.Join(parts, " ")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
