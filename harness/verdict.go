package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// Verdict is the SLA outcome of one scenario × endpoint × concurrency
// level, computed from its samples (pooled across repeated runs).
type Verdict struct {
	Scenario    string
	Endpoint    string
	Concurrency int
	Stats       *Stats
	Violations  []Violation
}

// OK reports whether every objective was met.
func (v Verdict) OK() bool { return len(v.Violations) == 0 }

// Verdicts groups samples by scenario, endpoint and concurrency and checks
// each group against its SLA in cfg.
func Verdicts(cfg *Config, samples []Sample) []Verdict {
	type key struct {
		scenario, endpoint string
		c                  int
	}
	groups := map[key][]Sample{}
	var keys []key
	for _, s := range samples {
		if s.Warmup {
			continue
		}
		k := key{s.Scenario, s.Endpoint, s.Concurrency}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.scenario != b.scenario {
			return a.scenario < b.scenario
		}
		if a.endpoint != b.endpoint {
			return a.endpoint < b.endpoint
		}
		return a.c < b.c
	})
	out := make([]Verdict, 0, len(keys))
	for _, k := range keys {
		sla := cfg.Scenario(k.scenario, k.endpoint).SLA
		st := Summarize(groups[k], sla)
		out = append(out, Verdict{k.scenario, k.endpoint, k.c, st, sla.Check(st)})
	}
	return out
}

// WriteVerdicts prints the verdict table and, under it, one line per
// violated objective in the form a failed test prints.
func WriteVerdicts(w io.Writer, vs []Verdict) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tendpoint\tconc\tn\tttft p50\tttft p95\ttotal p95\ttpot p50\tout-tok/s\terr\tschema\tacc\tgood\tverdict\t")
	for _, v := range vs {
		st := v.Stats
		verdict := "ok"
		if !v.OK() {
			verdict = fmt.Sprintf("FAIL (%d)", len(v.Violations))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s ms\t%s ms\t%s ms\t%s ms\t%.0f\t%s\t%s\t%s\t%s\t%s\t\n",
			v.Scenario, v.Endpoint, v.Concurrency, st.Attempted, num(st.TTFT.P50), num(st.TTFT.P95),
			num(st.Total.P95), num(st.TPOT.P50), st.OutTokPerSec, rate(st.ErrorRate()),
			rate(st.Quality.SchemaValidRate()), rate(st.Quality.AccuracyRate()), rate(st.GoodPct), verdict)
	}
	tw.Flush()
	for _, v := range vs {
		if st := v.Stats; st.Failed > 0 {
			fmt.Fprintf(w, "errors (%s endpoint=%s concurrency=%d): %s of %d\n", v.Scenario, v.Endpoint, v.Concurrency, st.ErrorKinds(), st.Attempted)
		}
	}
	for _, v := range vs {
		if c := v.Stats.Cold; c != nil {
			fmt.Fprintf(w, "cold start (%s endpoint=%s, first request, not in the percentiles): %s\n", v.Scenario, v.Endpoint, coldLine(c))
		}
	}
	for _, v := range vs {
		for _, viol := range v.Violations {
			fmt.Fprintf(w, "%s endpoint=%s concurrency=%d: %s\n", v.Scenario, v.Endpoint, v.Concurrency, viol)
		}
	}
}

// ReadSamples reads a JSONL sample file. A cut last line (an interrupted
// run) is skipped; a bad line elsewhere is an error naming file and line.
func ReadSamples(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	r := bufio.NewReader(f)
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var s Sample
			if jerr := json.Unmarshal(b, &s); jerr != nil {
				if err == io.EOF { // the cut last line of an interrupted run
					break
				}
				return nil, fmt.Errorf("%s:%d: %v", path, line, jerr)
			}
			out = append(out, s)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}

// Describe says which endpoints a run measures, saying so loudly when it is
// the simulator.
func (c *Config) Describe() string {
	var parts []string
	for _, ep := range c.Endpoints {
		if ep.Simulated {
			parts = append(parts, ep.Name+" (the built-in simulator)")
		} else {
			parts = append(parts, ep.String())
		}
	}
	return fmt.Sprintf("measuring %s — config: %s", strings.Join(parts, ", "), c.Source)
}

func coldLine(c *Sample) string {
	if !c.OK() {
		return "failed: " + c.Err
	}
	return fmt.Sprintf("ttft %s ms, total %s ms", num(ms(c.TTFT)), num(ms(c.Total)))
}
