package verdict

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/report"
)

// Breakdown is where the TTFT of one Ollama benchmark went: the medians
// over its runs of the server figures it reported (the metric table's
// rows of kind Server: load-ms, prefill-ms, netq-ms, server-tok/s), by
// row name; NaN for one it did not report.
type Breakdown struct {
	// Label names the benchmark as the verdict table does: "chat
	// endpoint=local concurrency=1".
	Label string
	Runs  int
	// Median is each row's median over the runs (load, prefill, netq,
	// server_tok).
	Median map[string]float64
}

// Breakdowns reads the breakdowns of the benchmarks of a results file
// that reported server figures, in the file's order: none when it has
// none, or cannot be read (its verdicts say so).
func Breakdowns(results string) []Breakdown {
	f, err := os.Open(results)
	if err != nil {
		return nil
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
	var out []Breakdown
	for _, name := range order {
		b := Breakdown{Label: benchLabel(name), Runs: len(figs[name]["load"]), Median: map[string]float64{}}
		for _, row := range units {
			b.Median[row] = median(figs[name][row])
		}
		out = append(out, b)
	}
	return out
}

// WriteBreakdowns writes, under the verdict table, where the TTFT of each
// Ollama benchmark of the results file went. Nothing when the run has none.
func WriteBreakdowns(w io.Writer, results string) {
	for _, b := range Breakdowns(results) {
		m := b.Median
		fmt.Fprintf(w, "breakdown (%s, median of %s): ttft = network+queue %s ms + load %s ms + prefill %s ms; server decode %s tok/s\n",
			b.Label, report.Plural(b.Runs, "run", "runs"), metric.Num(m["netq"]), metric.Num(m["load"]), metric.Num(m["prefill"]), metric.Num(m["server_tok"]))
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
