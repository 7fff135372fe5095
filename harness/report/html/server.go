package html

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmsla/llmsla/harness/report"
)

// The plots of what the servers said over the run (report.Timeline): their
// queue and batch, KV usage and memory against time, the levels the run
// sent marked as shaded bands named at the top, so that a queue that
// grows is seen under the load that grew it. Drawn only when some server
// was read.

// serverPlots are the plots over time, each of its quantities.
var serverPlots = []struct {
	id, title, y string
	quantities   []string
}{
	{"server-queue", "Server queue and batch over time", "requests", []string{report.QuantityQueue, report.QuantityRunning}},
	{"server-kv", "KV-cache usage over time", "KV-cache usage (%)", []string{report.QuantityKV}},
	{"server-memory", "Server memory over time", "memory (MB)", []string{report.QuantityProcessMemory, report.QuantityModelMemory}},
}

// serverFigures draws the plots over time of b's timelines.
func serverFigures(b *report.Board) ([]figure, error) {
	if len(b.Timelines) == 0 {
		return nil, nil
	}
	start := timelineStart(b.Timelines)
	var out []figure
	for _, sp := range serverPlots {
		fig := figure{ID: sp.id, Title: sp.title, Wide: true,
			Caption: "What each endpoint's server said of itself over the run (its /metrics, Ollama's /api/ps, its process), against seconds since the first reading; the shaded bands are the levels sent, each named at its start."}
		p, drawn, err := timePlot(b.Timelines, sp.quantities, sp.y, start)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", sp.id, err)
		}
		if !drawn {
			fig.Missing = "Not read: no server gave " + sp.y + "."
			out = append(out, fig)
			continue
		}
		if fig.SVG, err = renderWide(p); err != nil {
			return nil, fmt.Errorf("plot %s: %w", sp.id, err)
		}
		out = append(out, fig)
	}
	return out, nil
}

// timelineStart is the first instant any timeline holds.
func timelineStart(tls []report.Timeline) time.Time {
	var start time.Time
	early := func(t time.Time) {
		if start.IsZero() || t.Before(start) {
			start = t
		}
	}
	for _, tl := range tls {
		for _, s := range tl.Series {
			for _, pt := range s.Points {
				early(pt.At)
			}
		}
		for _, sp := range tl.Levels {
			early(sp.From)
		}
	}
	return start
}

// timePlot draws the quantities of every timeline against seconds since
// start: a line per endpoint and quantity (the endpoint's colour, a
// quantity's dashes), over bands marking the levels.
func timePlot(tls []report.Timeline, quantities []string, ylabel string, start time.Time) (*plot.Plot, bool, error) {
	p := newPlot("", "seconds since the first reading", ylabel)
	secs := func(t time.Time) float64 { return t.Sub(start).Seconds() }
	var lines []plot.Plotter
	top := 0.0
	for i, tl := range tls {
		for q, quantity := range quantities {
			pts := tl.Of(quantity)
			if len(pts) == 0 {
				continue
			}
			xys := make(plotter.XYs, len(pts))
			for j, pt := range pts {
				xys[j] = plotter.XY{X: secs(pt.At), Y: pt.Value}
				top = math.Max(top, pt.Value)
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, false, err
			}
			l.Color, l.Width = plotutil.Color(i), vg.Points(1.5)
			if q > 0 {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			lines = append(lines, l)
			p.Legend.Add(tl.Endpoint+" "+quantity, l)
		}
	}
	if len(lines) == 0 {
		return p, false, nil
	}
	top = niceCeil(math.Max(top, 1) * 1.15)
	if slices.Contains(quantities, report.QuantityKV) {
		top = 110 // a share: its whole, and room for the levels' names
	}
	bands, err := levelBands(tls, secs, top)
	if err != nil {
		return nil, false, err
	}
	addData(p, append(bands, lines...)...)
	p.Y.Min, p.Y.Max = 0, top
	return p, true, nil
}

// levelBands shades each level's span, alternately, and names it at the
// top of its band: the levels of every endpoint, each span once.
func levelBands(tls []report.Timeline, secs func(time.Time) float64, top float64) ([]plot.Plotter, error) {
	var out []plot.Plotter
	var names plotter.XYLabels
	seen := map[report.Span]bool{}
	n := 0
	for _, tl := range tls {
		for _, sp := range tl.Levels {
			if seen[sp] || !sp.To.After(sp.From) {
				continue
			}
			seen[sp] = true
			x0, x1 := secs(sp.From), secs(sp.To)
			band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: top}, {X: x0, Y: top}})
			if err != nil {
				return nil, err
			}
			band.Color = color.Gray{Y: uint8(238 - 14*(n%2))}
			band.LineStyle.Width = 0
			out = append(out, band)
			names.XYs = append(names.XYs, plotter.XY{X: x0, Y: top})
			names.Labels = append(names.Labels, sp.Level)
			n++
		}
	}
	if len(names.XYs) > 0 {
		labels, err := plotter.NewLabels(names)
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font.Size = vg.Points(7)
			labels.TextStyle[i].YAlign = draw.YTop // hung from the top of its band
		}
		labels.Offset = vg.Point{X: vg.Points(2), Y: vg.Points(-2)}
		out = append(out, labels)
	}
	return out, nil
}

// renderWide draws p across the page's width.
func renderWide(p *plot.Plot) ([]byte, error) {
	t := newTagger(2*width, height)
	drawBeside(t, draw.New(t), takeLegend(p), titleHeight(p), p.Draw)
	return t.svg()
}
