package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/stats"
)

// Table is the board as cells: per endpoint its overall row, then (unless
// short) one row per scenario. Figures are the metric table's ([Columns]),
// then cost and whether every objective held.
func (b *Board) Table(short bool) (head []string, rows [][]string, overall []bool) {
	var sts []*stats.Stats
	for _, e := range b.Endpoints {
		sts = append(sts, e.Overall.Stats)
		for _, r := range e.Scenarios {
			sts = append(sts, r.Stats)
		}
	}
	cols := metric.Shown(Columns(), sts)
	head = []string{"endpoint", "model", "scenario", "n"}
	for _, c := range cols {
		head = append(head, header(c))
	}
	head = append(head, "cost/1k req", "objectives")
	row := func(e *Entry, r Row, scenario string) []string {
		out := []string{escape.Text(e.Name), escape.Text(e.Model), escape.Text(scenario), fmt.Sprint(r.Stats.Attempted)}
		if r.Scenario != "" {
			out[0], out[1] = "", ""
		}
		for _, c := range cols {
			v, _ := c.Of(r.Stats)
			out = append(out, c.Format(v))
		}
		cell := objectivesCell(r)
		if r.Scenario == "" && len(e.NotApplicable) > 0 {
			cell += fmt.Sprintf(" (%d n/a)", len(e.NotApplicable))
		}
		return append(out, r.Cost.String(), cell)
	}
	for _, e := range b.Endpoints {
		rows = append(rows, row(e, e.Overall, "all"))
		overall = append(overall, true)
		if short {
			continue
		}
		for _, r := range e.Scenarios {
			rows = append(rows, row(e, r, r.Scenario))
			overall = append(overall, false)
		}
	}
	return head, rows, overall
}

// objectivesCell: "ok", "n/a" (the endpoint's API cannot serve the
// scenario), "not run", or "FAIL (n)" with n the objectives
// violated over the levels, and the levels not run that another endpoint
// ran: "FAIL (1; 2 levels not run)".
func objectivesCell(r Row) string {
	switch {
	case r.NotApplicable != "":
		return "n/a"
	case r.Stats.Attempted == 0:
		return "not run"
	case r.Meets:
		return "ok"
	}
	var parts []string
	if r.Failed > 0 {
		parts = append(parts, fmt.Sprint(r.Failed))
	}
	if len(r.Missing) > 0 {
		parts = append(parts, plural(len(r.Missing), "level")+" not run")
	}
	if len(parts) == 0 { // the overall row of an endpoint missing a scenario or level
		return "FAIL"
	}
	return "FAIL (" + strings.Join(parts, "; ") + ")"
}

// Text writes the board for a terminal: the table (per scenario unless
// short), the Pareto front, the rankings with their ties, what the cost
// rests on, and the recommendation.
func (b *Board) Text(w io.Writer, short bool) {
	fmt.Fprintf(w, "Model selection: %s\n\n", escape.Text(b.Summary()))
	head, rows, _ := b.Table(short)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, line := range b.Notes(short) {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, escape.Text(b.Recommendation))
}

// Markdown writes the board for a pull-request comment or a GitHub step
// summary: the same table and notes, the overall rows in bold.
func (b *Board) Markdown(w io.Writer) {
	fmt.Fprintf(w, "### Model selection: %s\n\n", escape.Markdown(b.Summary()))
	fmt.Fprintf(w, "**%s**\n\n", escape.Markdown(b.Recommendation))
	head, rows, overall := b.Table(false)
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	align := make([]string, len(head))
	for i := range align {
		align[i] = "---:"
		if i < 3 {
			align[i] = ":---"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(align, "|"))
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, c := range r {
			cells[j] = escape.Markdown(c)
			if overall[i] && j < 3 {
				cells[j] = "**" + cells[j] + "**"
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
	for _, line := range b.Notes(false) {
		// An indented note belongs to the one above it.
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		fmt.Fprintf(w, "%s- %s\n", indent, escape.Markdown(strings.TrimLeft(line, " ")))
	}
}

// Notes are the lines under the table: front, dominated endpoints,
// rankings (unless short), cost basis, and (unless short) per endpoint
// the objectives it missed, the first NotesViolations of them. Each line
// is escaped for a terminal (escape.Text): it names endpoints.
func (b *Board) Notes(short bool) []string {
	out := b.notes(short)
	for i := range out {
		out[i] = escape.Text(out[i])
	}
	return out
}

func (b *Board) notes(short bool) []string {
	var out []string
	var front []string
	for _, e := range b.Endpoints {
		if e.Pareto {
			front = append(front, e.Name)
		}
	}
	if len(b.Axes) > 0 {
		out = append(out, fmt.Sprintf("Pareto front over %s: %s", joinAnd(labels(b.Axes)), joinAnd(front)))
	}
	for _, e := range b.Endpoints {
		if len(e.DominatedBy) > 0 {
			by := make([]string, len(e.DominatedBy))
			for i, d := range e.DominatedBy {
				by[i] = d.String()
			}
			out = append(out, fmt.Sprintf("%s is dominated by %s", e.Name, strings.Join(by, "; ")))
		}
	}
	out = append(out, b.NotCompared...)
	if !short {
		unknown := ""
		for _, r := range b.Ranks {
			if slices.Contains(r.Unknown, true) {
				unknown = "; ?: not comparable, e.g. costs in two currencies"
			}
		}
		out = append(out, fmt.Sprintf("Rankings, best first (≈: difference not significant at %s, Mann-Whitney U on the per-request values%s):", b.alphaText(), unknown))
		for _, r := range b.Ranks {
			out = append(out, "  "+r.String())
		}
	}
	for _, e := range b.Endpoints {
		if note := e.Overall.Cost.Note(); note != "" && (!short || !e.Overall.Cost.Measured()) {
			out = append(out, fmt.Sprintf("cost of %s: %s", e.Name, note))
		}
	}
	for _, e := range b.Endpoints {
		if len(e.NotApplicable) > 0 {
			out = append(out, notApplicableNote(e))
		}
	}
	if !short {
		for _, e := range b.Endpoints {
			if len(e.Violations) > 0 {
				out = append(out, missed(e))
			}
		}
		out = append(out, IntervalLines(b.Verdicts)...)
	}
	return out
}

// NotesViolations is how many of an endpoint's violated objectives the
// notes name; the JSON lists every one.
const NotesViolations = 3

// missed is the note of what an endpoint missed: "fast missed 2 objectives:
// extraction concurrency=1: accuracy 60% < 90% (n=20); summary …".
func missed(e *Entry) string {
	vs := e.Violations
	more := ""
	if len(vs) > NotesViolations {
		more = fmt.Sprintf("; and %d more (-format json lists every one)", len(vs)-NotesViolations)
		vs = vs[:NotesViolations]
	}
	short := make([]string, len(vs))
	for i, v := range vs {
		short[i] = strings.Replace(v, " endpoint="+e.Name, "", 1) // the line names it
	}
	return fmt.Sprintf("%s missed %s: %s%s", e.Name, plural(len(e.Violations), "objective"), strings.Join(short, "; "), more)
}

// notApplicableNote is the note of the scenarios an endpoint's API cannot
// serve: "emb: agent, chat and tools not applicable (the scenario
// generates text, the endpoint embeds (api: embeddings)): not misses, and
// not passes".
func notApplicableNote(e *Entry) string {
	var why string
	for _, r := range e.Scenarios {
		if r.NotApplicable != "" {
			why = strings.TrimPrefix(r.NotApplicable, "not applicable: ")
			break
		}
	}
	return fmt.Sprintf("%s: %s not applicable (%s): not run, neither missed nor met", e.Name, joinAnd(e.NotApplicable), why)
}

// Summary says what the board is over: "3 endpoints × 4 scenarios; each
// row pools the load levels (concurrency=1, concurrency=5)".
func (b *Board) Summary() string {
	s := fmt.Sprintf("%s × %s; each row pools its load levels (%s)",
		plural(len(b.Endpoints), "endpoint"), plural(len(b.Scenarios), "scenario"), b.levelNames())
	if b.SearchSteps > 0 {
		s += fmt.Sprintf("; %s of capacity-search steps left out", plural(b.SearchSteps, "request"))
	}
	return s
}

func plural(n int, noun string) string { return Plural(n, noun, noun+"s") }
