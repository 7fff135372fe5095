// Package report writes what people read: the last stage of llmsla's
// pipeline. Every report is a view over verdicts, which are views over
// samples, so a table, a leaderboard and a merge of shards show the same
// figures: [Verdicts] is the SLA table of one run, and a [Board] the model
// selection over several endpoints (cost per 1k requests, Pareto front,
// ties, a recommendation) in text, markdown, JSON and CSV; package
// report/html draws it as a page with plots.
package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// WorstCases is how many failing cases a report names per run.
const WorstCases = 5

// Verdicts prints the verdict table (columns from the metric table) and
// under it: what each row was checked against, the errors of each level by
// kind, the cold first request of each run, the cases that failed most,
// and one line per violated objective in the form a failed test prints.
func Verdicts(w io.Writer, vs []objective.Verdict) {
	cols := metric.Shown(metric.Columns(), verdictStats(vs))
	levelHead, levelCell := levelColumn(vs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"scenario", "endpoint", levelHead, "n"}
	for _, c := range cols {
		head = append(head, header(c))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "verdict"), "\t")+"\t")
	for _, v := range vs {
		row := []string{escape.Text(v.Scenario), escape.Text(v.Endpoint), escape.Text(levelCell(v.Level)), count(v.Stats)}
		for _, c := range cols {
			got, _ := c.Of(v.Stats)
			row = append(row, c.Format(got))
		}
		fmt.Fprintln(tw, strings.Join(append(row, verdictWord(v)), "\t")+"\t")
	}
	tw.Flush()
	writeObjectives(w, vs)
	for _, line := range append(IntervalLines(vs), StoppedLines(vs)...) {
		say(w, "%s", line)
	}
	Load(w, vs)
	Conversations(w, vs)
	writeServers(w, vs)
	for _, v := range vs {
		for _, warning := range v.Stats.Warnings {
			say(w, "WARNING (%s): %s", where(v), warning)
		}
	}
	for _, v := range vs {
		if st := v.Stats; st.Failed > 0 {
			say(w, "errors (%s): %s of %d", where(v), st.ErrorKinds(), st.Attempted)
		}
	}
	for _, v := range vs {
		for _, c := range v.Stats.Colds {
			from := ""
			if c.Shard != "" {
				from = " of shard " + c.Shard
			}
			say(w, "cold start (%s endpoint=%s, first request%s, not in the percentiles): %s", v.Scenario, v.Endpoint, from, coldLine(c))
		}
	}
	for _, v := range vs {
		if !v.OK() && v.Search() == "" {
			Cases(w, v.Stats, "  ")
		}
	}
	for _, v := range vs {
		if v.Search() != "" {
			continue // a search's steps beyond the limit fail by design
		}
		for _, viol := range v.Violations {
			say(w, "%s: %s", where(v), viol)
		}
	}
}

// say writes one line built from names and messages that came from
// outside (a samples file, an endpoint), escaped for a terminal and go
// test output (escape.Text): none of them acts on the terminal or forges
// the line after it.
func say(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, escape.Text(fmt.Sprintf(format, a...)))
}

// where names a verdict's run as test output does:
// "chat endpoint=prod concurrency=5".
func where(v objective.Verdict) string {
	return strings.TrimSpace(fmt.Sprintf("%s endpoint=%s %s", v.Scenario, v.Endpoint, strings.ReplaceAll(string(v.Level), "/", " ")))
}

// Cases writes the cases of st that failed most: id, how often, expected
// and got, as go test lists failing subtests.
func Cases(w io.Writer, st *stats.Stats, indent string) {
	worst := st.WorstCases(WorstCases)
	if len(worst) == 0 {
		return
	}
	say(w, "failing cases (%s endpoint=%s %s):", st.Scenario, st.Endpoint, st.Level)
	for _, c := range worst {
		detail := ""
		if c.Detail != "" {
			detail = " (" + c.Detail + ")"
		}
		say(w, "%scase %s failed %d of %d: expected %q, got %q%s", indent, c.ID, c.Failed, c.Asked, c.Expected, c.Got, detail)
	}
}

// writeObjectives says under the table what "ok" meant: the objectives of
// each scenario × endpoint, once per distinct set.
func writeObjectives(w io.Writer, vs []objective.Verdict) {
	seen := map[string]bool{}
	for _, v := range vs {
		parts := make([]string, len(v.Objectives))
		for i, th := range v.Objectives {
			parts[i] = th.String()
		}
		line := fmt.Sprintf("objectives (%s endpoint=%s): %s", v.Scenario, v.Endpoint, strings.Join(parts, ", "))
		if len(parts) == 0 {
			line = fmt.Sprintf("objectives (%s endpoint=%s): none", v.Scenario, v.Endpoint)
		}
		if !seen[line] {
			seen[line] = true
			say(w, "%s", line)
		}
	}
	writeUncovered(w, vs)
	writeLenient(w, vs)
	writeQualityOff(w, vs)
	writeFixed(w, vs)
	writeCached(w, vs)
}

// writeQualityOff names the runs whose answers were not judged: their "ok"
// is latency and errors only.
func writeQualityOff(w io.Writer, vs []objective.Verdict) {
	seen := map[string]bool{}
	for _, v := range vs {
		run := v.Scenario + " endpoint=" + v.Endpoint
		if v.Stats.QualityOff > 0 && !seen[run] {
			seen[run] = true
			say(w, "quality (%s): not judged (quality: off, or -latency-only): its verdict is latency and errors only", run)
		}
	}
}

// writeLenient names the levels whose answers were JSON only once a fence
// or the prose around it was stripped: counted invalid, which a reader of
// "json 0%" would otherwise take for answers that are not JSON at all.
func writeLenient(w io.Writer, vs []objective.Verdict) {
	for _, v := range vs {
		if q := v.Stats.Quality; q.JSONLenient > 0 {
			say(w, "json (%s): %d of %d answers parse as JSON only once a ``` fence or the prose around it is stripped; counted invalid (ask for bare JSON, or use response_format)",
				where(v), q.JSONLenient, q.JSONChecked)
		}
	}
}

// writeUncovered names the runs that asked only part of their fixture with
// no coverage objective: their "ok" speaks for the cases asked only.
func writeUncovered(w io.Writer, vs []objective.Verdict) {
	seen := map[string]bool{}
	for _, v := range vs {
		st := v.Stats
		run := v.Scenario + " endpoint=" + v.Endpoint
		// Asked is 0 until objective.CheckRuns has seen every level.
		// Quality off: no figure speaks for the cases, asked or not.
		if v.Search() != "" || st.FixtureCases == 0 || st.Asked == 0 || st.Asked >= st.FixtureCases || st.QualityOff > 0 || seen[run] {
			continue
		}
		seen[run] = true
		required := false
		for _, th := range v.Objectives {
			required = required || th.Key() == "coverage_min"
		}
		if !required {
			say(w, "coverage (%s): %d of %d fixture cases asked, not required: its quality figures speak for those only (more requests, or coverage_min: 1 to require every case)", run, st.Asked, st.FixtureCases)
		}
	}
}

// levelColumn shows levels compactly: when every level is one label with
// the same key, the column is that key and the cells its values.
func levelColumn(vs []objective.Verdict) (string, func(sample.Level) string) {
	key := ""
	for i, v := range vs {
		labels := v.Level.Labels()
		if len(labels) != 1 || (i > 0 && labels[0].Key != key) {
			return "level", func(l sample.Level) string { return string(l) }
		}
		key = labels[0].Key
	}
	if key == "concurrency" {
		key = "conc"
	}
	return key, func(l sample.Level) string {
		if ls := l.Labels(); len(ls) == 1 {
			return ls[0].Value
		}
		return string(l)
	}
}

// count is a row's n: its requests, or, for agent loops, its loops (each
// several requests), said so.
func count(st *stats.Stats) string {
	if st.Tools.Loops > 0 {
		return fmt.Sprintf("%d loops", st.Tools.Loops)
	}
	return fmt.Sprint(st.Attempted)
}

func header(f metric.Fig) string {
	if f.Kind == metric.Latency {
		return f.Label()
	}
	return f.Column
}

func coldLine(c *sample.Sample) string {
	if !c.OK() {
		return "failed: " + escape.Text(c.Err)
	}
	if c.TTFT == 0 { // an embeddings request: one body, no token
		return fmt.Sprintf("total %s ms (no first token: not a stream)", metric.Num(stats.Ms(c.Total)))
	}
	return fmt.Sprintf("ttft %s ms, total %s ms", metric.Num(stats.Ms(c.TTFT)), metric.Num(stats.Ms(c.Total)))
}

// verdictStats is the statistics of each verdict's row.
func verdictStats(vs []objective.Verdict) []*stats.Stats {
	out := make([]*stats.Stats, len(vs))
	for i := range vs {
		out[i] = vs[i].Stats
	}
	return out
}
