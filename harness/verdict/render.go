package verdict

import (
	"bytes"
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/report/html"
)

// Formats are the model-selection report's formats (llmsla report -format).
var Formats = []string{"text", "markdown", "json", "csv", "html"}

var boards = map[string]func(io.Writer, *report.Board) error{
	"text":     func(w io.Writer, b *report.Board) error { b.Text(w, false); return nil },
	"markdown": func(w io.Writer, b *report.Board) error { b.Markdown(w); return nil },
	"json":     func(w io.Writer, b *report.Board) error { return b.JSON(w) },
	"csv":      func(w io.Writer, b *report.Board) error { return b.CSV(w) },
}

// Render is the run's model-selection board in format (one of Formats),
// the run's provenance at the top of what people read (text, markdown),
// the page's header naming the run (html).
func Render(r *Run, cfg *config.Config, format string, prefer report.Prefer, quality string) ([]byte, error) {
	b := r.Board(cfg, prefer, quality)
	var buf bytes.Buffer
	switch format {
	case "html":
		err := html.WriteRun(&buf, b, r.Info(cfg))
		return buf.Bytes(), err
	case "text":
		report.Provenance(&buf, r.Provenance)
		buf.WriteString("\n")
	case "markdown":
		for _, l := range report.ProvenanceLines(r.Provenance) {
			buf.WriteString(escape.Markdown(l) + "  \n")
		}
		buf.WriteString("\n")
	}
	err := boards[format](&buf, b)
	return buf.Bytes(), err
}
