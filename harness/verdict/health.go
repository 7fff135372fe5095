package verdict

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// LevelHealth is the client's health over one benchmark's runs, each
// figure the worst of its runs.
type LevelHealth struct {
	Label   string // "chat endpoint=sim concurrency=1", as the verdict table names it
	Runs    int
	Figures health.Figures
}

// Health reads the client's health, benchmark by benchmark, from the
// results files beside the samples paths (a directory's every results
// file); unrecorded names the results files that hold benchmarks but no
// client figures (recorded before llmsla measured them, or cut).
func Health(paths []string) (levels []LevelHealth, unrecorded []string) {
	var files []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			txt, _ := filepath.Glob(filepath.Join(p, "*.txt"))
			files = append(files, txt...)
			continue
		}
		files = append(files, recording.TxtBeside(p))
	}
	for _, file := range files {
		lv, benches := healthOf(file)
		if benches > 0 && len(lv) == 0 {
			unrecorded = append(unrecorded, file)
		}
		levels = append(levels, lv...)
	}
	return levels, unrecorded
}

func healthOf(file string) (levels []LevelHealth, benches int) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	vals := map[string]map[string][]float64{} // benchmark → unit → values
	runs := map[string]int{}
	var order []string
	r := benchfmt.NewReader(f, file)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if unsent, _ := recording.Unsent(res); unsent {
			continue // not a run (a repetition left once its level was decided)
		}
		name := string(res.Name.Full())
		if vals[name] == nil {
			vals[name] = map[string][]float64{}
			order = append(order, name)
		}
		runs[name]++
		for _, v := range res.Values {
			if u := recording.UnitOf(v); health.IsUnit(u) {
				vals[name][u] = append(vals[name][u], recording.ValueOf(v))
			}
		}
	}
	for _, name := range order {
		if fig, ok := health.FromUnits(vals[name]); ok {
			levels = append(levels, LevelHealth{Label: benchLabel(name), Runs: runs[name], Figures: fig})
		}
	}
	return levels, len(order)
}

// ClientBound is the first level whose client was beyond health.Default,
// named with its figure (wrapping health.ErrBusy), or nil.
func ClientBound(levels []LevelHealth) error {
	for _, lv := range levels {
		if err := health.Default.Check(lv.Figures); err != nil {
			return fmt.Errorf("%s: %w", lv.Label, err)
		}
	}
	return nil
}

// WriteHealth writes, under the verdict table, one line per level whose
// client was not clean (its figures and the error they imply for every
// percentile of the level), or one line saying every level's was; and a
// line for results recorded without the figures. allowBusy says that a
// client-bound level was judged anyway.
func WriteHealth(w io.Writer, levels []LevelHealth, unrecorded []string, allowBusy bool) {
	worst, bound := 0.0, 0.0
	clean := 0
	for _, lv := range levels {
		f := lv.Figures
		worst, bound = max(worst, f.LateP99), max(bound, f.ErrorBound())
		err := health.Default.Check(f)
		if err == nil && f.LateP99 <= health.Default.LateP99/2 {
			clean++
			continue
		}
		state := "busy"
		if f.Short() {
			state = fmt.Sprintf("too short to judge its client (%d wakes of the probe)", f.Wakes)
		}
		if err != nil {
			state = "client-bound"
			if allowBusy {
				state += ", judged anyway (-allow-busy)"
			}
		}
		fmt.Fprintf(w, "client (%s): %s — timer late p50 %s p99 %s max %s ms (limit p99 %s), cpu %s of %s cores%s, throttled %s%%, gc %s%%, load %s/cpu; every percentile ± %s ms\n",
			lv.Label, state, metric.Num(f.LateP50), metric.Num(f.LateP99), metric.Num(f.LateMax), metric.Num(health.Default.LateP99),
			metric.Num(f.CPU), metric.Num(f.Cores), simShare(f), metric.Num(100*f.Throttled), metric.Num(100*f.GCShare), metric.Num(f.Load), metric.Num(f.ErrorBound()))
		if err != nil && f.SimMeasured && f.Sim >= simApart {
			fmt.Fprintf(w, "  the in-process simulator took %s%% of that cpu: run it as its own process (llmsla sim -addr 127.0.0.1:8080, docs/accuracy.md)\n", metric.Num(100*f.Sim))
		}
	}
	if clean > 0 && clean == len(levels) {
		fmt.Fprintf(w, "client: kept time on every level (timer late p99 ≤ %s ms): every percentile ± %s ms\n", metric.Num(worst), metric.Num(bound))
	}
	slices.Sort(unrecorded)
	if len(unrecorded) > 0 {
		fmt.Fprintf(w, "client: health not recorded in %s: whether the client kept time is not known\n", strings.Join(unrecorded, ", "))
	}
}

// simApart is the simulator's share of a client-bound level's CPU from
// which the verdict says to run it apart: a quarter, when it and the
// client contend for the same cores.
const simApart = 0.25

// simShare is the in-process simulator's part of the CPU figure, when
// it was measured: on a busy machine it names what took the client's
// cores (llmsla sim, run apart, gives them back).
func simShare(f health.Figures) string {
	if !f.SimMeasured {
		return ""
	}
	return fmt.Sprintf(" (%s%% of it the in-process simulator's)", metric.Num(100*f.Sim))
}

// CheckClient reads the client's health beside the samples paths, writes
// it under the verdict table (WriteHealth) and returns the first level
// that was client-bound — a broken measurement, judged only with
// allowBusy (then nil).
func CheckClient(w io.Writer, paths []string, allowBusy bool) error {
	levels, unrecorded := Health(paths)
	WriteHealth(w, levels, unrecorded, allowBusy)
	if allowBusy {
		return nil
	}
	return ClientBound(levels)
}

// beside is each level's server figures with the client's error over the
// level (its health, the worst of its runs) where the results recorded
// it: what the agreement of the two TTFTs allows (stats.Server.ClientError).
func (r *Run) beside() objective.Servers {
	errs, errsMax := map[string]float64{}, map[string]float64{}
	for _, lv := range r.Health {
		errs[lv.Label] = max(errs[lv.Label], lv.Figures.ErrorBound())
		errsMax[lv.Label] = max(errsMax[lv.Label], lv.Figures.ErrorBoundMax())
	}
	figures := r.Servers.Figures
	return func(scenario, endpoint string, level sample.Level) *stats.Server {
		if figures == nil {
			return nil
		}
		srv := figures(scenario, endpoint, level)
		l := healthLabel(scenario, endpoint, level)
		if e, ok := errs[l]; ok {
			srv = srv.WithClient(e, errsMax[l])
		}
		return srv
	}
}

// healthLabel names a level as benchLabel reads its benchmark's name
// (BenchmarkToolLoop/endpoint=a_b/concurrency=1 → "toolloop endpoint=a_b
// concurrency=1").
func healthLabel(scenario, endpoint string, level sample.Level) string {
	sc := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(scenario))
	return strings.TrimSpace(sc + " endpoint=" + sample.NameValue(endpoint) + " " + strings.ReplaceAll(string(level), "/", " "))
}
