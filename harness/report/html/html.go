// Package html writes the model-selection report as one self-contained
// HTML file: the board's table, its notes and recommendation, and plots
// drawn as inline SVG by gonum.org/v1/plot — latency distributions per
// endpoint, quality against latency with the Pareto front and cost as
// marker size, TTFT against input length and throughput against load when
// those levels were measured, and errors by kind. The file loads nothing
// (no script, no font, no stylesheet from elsewhere), so it opens offline,
// as a CI artifact or an e-mail attachment.
//
// It is a package of its own so that the plotting library is linked only
// into what writes HTML, not into every suite's test binary.
package html

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// Write writes the board as an HTML page, its header naming the run as
// far as the samples say (its date, each endpoint's models).
func Write(w io.Writer, b *report.Board) error {
	var samples []sample.Sample
	for _, e := range b.Endpoints {
		samples = append(samples, e.Samples()...)
	}
	return WriteRun(w, b, report.NewRunInfo(samples, nil))
}

// WriteRun writes the board as an HTML page whose header names the run:
// the commit, when it ran, the configuration, each endpoint with its
// models and host.
func WriteRun(w io.Writer, b *report.Board, run report.RunInfo) error {
	figs, err := figures(b)
	if err != nil {
		return err
	}
	head, rows, overall := b.Table(false)
	type row struct {
		Cells   []string
		Overall bool
	}
	data := struct {
		Title, Summary string
		Recommendation string
		Head           []string
		Rows           []row
		Notes          []string
		Figures        []figure
		Run            report.RunInfo
		When           string
	}{
		Title: "llmsla model selection",
		// html/template escapes for HTML; escape.Text shows the control
		// characters of names (Table and Notes are escaped already).
		Summary:        escape.Text(b.Summary()),
		Recommendation: escape.Text(b.Recommendation),
		Head:           head,
		Notes:          b.Notes(false),
		Figures:        figs,
		Run:            run,
		When:           when(run),
	}
	for i, r := range rows {
		data.Rows = append(data.Rows, row{r, overall[i]})
	}
	return page.Execute(w, data)
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	// The SVG comes from the plotting library, not from the samples:
	// labels in it (endpoint names) are escaped by the library's writer.
	"svg":   func(b []byte) template.HTML { return template.HTML(b) },
	"fail":  func(s string) bool { return strings.HasPrefix(s, "FAIL") || s == "not run" },
	"inset": func(s string) bool { return strings.HasPrefix(s, "  ") },
	// text is a string from the recording or the configuration, its
	// control characters shown rather than written (html/template escapes
	// markup, not them).
	"text": escape.Text,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; }
dl.run { display: grid; grid-template-columns: max-content 1fr; gap: .1em 1em; margin: 0 0 1em; color: #444; }
dl.run dt { font-weight: 600; }
dl.run dd { margin: 0; }
p.recommendation { font-size: 1.1em; font-weight: 600; padding: .6em .8em; background: #eef5ee; border-left: 4px solid #3a7d44; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 1em 0; }
th, td { padding: .2em .6em; text-align: right; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th:nth-child(-n+3), td:nth-child(-n+3) { text-align: left; }
tr.overall td { font-weight: 600; border-top: 2px solid #bbb; }
td.fail { color: #b00020; }
ul.notes li.inset { list-style: none; font-family: ui-monospace, "Liberation Mono", monospace; font-size: .95em; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(30em, 1fr)); gap: 1.5em; }
figure { margin: 0; }
figure.wide { grid-column: 1 / -1; }
figure svg { width: 100%; height: auto; }
figcaption { font-size: .9em; color: #555; }
p.missing { color: #777; font-style: italic; border: 1px dashed #ccc; padding: 1em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<dl class="run">
<dt>commit</dt><dd>{{.Run.CommitText}}</dd>
<dt>run</dt><dd>{{.When}}</dd>
{{if .Run.Config}}<dt>config</dt><dd>{{text .Run.Config}}</dd>
{{end}}<dt>endpoints</dt><dd>{{range $i, $e := .Run.Endpoints}}{{if $i}}; {{end}}{{$e}}{{end}}</dd>
</dl>
<p>{{.Summary}}</p>
<p class="recommendation">{{.Recommendation}}</p>
<table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{if .Overall}} class="overall"{{end}}>{{range .Cells}}<td{{if fail .}} class="fail"{{end}}>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<ul class="notes">
{{range .Notes}}<li{{if inset .}} class="inset"{{end}}>{{.}}</li>
{{end}}</ul>
<div class="figures">
{{range .Figures}}<figure class="plot{{if .Wide}} wide{{end}}" id="{{.ID}}">
<h2>{{.Title}}</h2>
{{if .Missing}}<p class="missing">{{.Missing}}</p>{{else}}{{svg .SVG}}{{end}}
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}
</figure>
{{end}}</div>
</body>
</html>
`))

// when says when the run's measured requests went out, from the samples'
// t0: "2026-01-01 00:00:00 – 00:01:13 UTC (1m13s)".
func when(r report.RunInfo) string {
	if r.Start.IsZero() {
		return "not recorded (no measured request has a start time)"
	}
	start, end := r.Start.UTC().Round(time.Second), r.End.UTC().Round(time.Second)
	layout := "15:04:05"
	if end.YearDay() != start.YearDay() || end.Year() != start.Year() {
		layout = "2006-01-02 15:04:05"
	}
	return fmt.Sprintf("%s – %s UTC (%s)", start.Format("2006-01-02 15:04:05"), end.Format(layout), end.Sub(start).Round(time.Second))
}
