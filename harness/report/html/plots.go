package html

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// A figure is one plot of the page: its SVG, or why it was not drawn (a
// figure whose data were not measured is said to be missing, not drawn
// empty).
type figure struct {
	ID, Title, Caption string
	SVG                []byte
	Missing            string
	Wide               bool // panels side by side: the page's whole width
}

const width, height = 6.4 * vg.Inch, 3.6 * vg.Inch

// figures draws every plot of the board.
func figures(b *report.Board) ([]figure, error) {
	var out []figure
	for _, f := range []func(*report.Board) (figure, error){
		latencyCDF("ttft", "TTFT", func(s *sample.Sample) time.Duration { return s.TTFT }),
		latencyCDF("total", "total", func(s *sample.Sample) time.Duration { return s.Total }),
		qualityLatency, ttftByInput, throughputByLoad, errorKinds,
	} {
		fig, err := f(b)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", fig.ID, err)
		}
		out = append(out, fig)
	}
	srv, err := serverFigures(b)
	return append(out, srv...), err
}

// render draws p as SVG for inlining in the page, its legend beside the
// data (layout.go).
func render(p *plot.Plot) ([]byte, error) {
	t := newTagger(width, height)
	drawBeside(t, draw.New(t), takeLegend(p), titleHeight(p), p.Draw)
	return t.svg()
}

// svgOf is the canvas as an <svg> element, without the XML declaration
// that a standalone file has and an inline one must not. The library
// escapes its labels (endpoint names) for XML; escape.Writer shows their
// control characters.
func svgOf(c *vgsvg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	w := escape.NewWriter(&buf)
	if _, err := c.WriteTo(w); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	svg := buf.Bytes()
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:]
	}
	return svg, nil
}

// The plots are set in the sans-serif face of the fonts gonum embeds
// (Liberation), like the page; New reads the default once per plot.
func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	return p
}

// plainTicks are gonum's default ticks labelled as short as the value
// allows: "2500", not "2500.00".
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 10, 64)
		}
	}
	return ticks
}

// latencyCDF plots, per endpoint, the share of successful warm requests
// whose latency was at most x: the whole distribution, of which p50 and
// p95 are two points.
func latencyCDF(id, name string, get func(*sample.Sample) time.Duration) func(*report.Board) (figure, error) {
	return func(b *report.Board) (figure, error) {
		fig := figure{ID: id + "-cdf", Title: name + " distribution",
			Caption: fmt.Sprintf("Share of successful warm requests with %s at most x, per endpoint (x on a log scale).", name)}
		p := newPlot("", name+" (ms)", "share of requests")
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Min, p.Y.Max = 0, 1
		drawn := 0
		for i, e := range b.Endpoints {
			var xs []float64
			for _, s := range e.Samples() {
				if s.Measured() && s.OK() && get(&s) > 0 {
					xs = append(xs, float64(get(&s))/float64(time.Millisecond))
				}
			}
			if len(xs) == 0 {
				continue
			}
			sort.Float64s(xs)
			pts := make(plotter.XYs, len(xs))
			for j, x := range xs {
				pts[j] = plotter.XY{X: x, Y: float64(j+1) / float64(len(xs))}
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return fig, err
			}
			l.StepStyle = plotter.PostStep
			l.Color, l.Width = plotutil.Color(i), vg.Points(1.5)
			addData(p, l)
			p.Legend.Add(fmt.Sprintf("%s (n=%d)", e.Name, len(xs)), l)
			drawn++
		}
		if drawn == 0 {
			fig.Missing = "No successful request: no " + name + " was measured."
			return fig, nil
		}
		var err error
		fig.SVG, err = render(p)
		return fig, err
	}
}

// qualityLatency places each endpoint by accuracy and p95 TTFT, its marker
// sized by cost per 1k requests, and joins the Pareto front.
func qualityLatency(b *report.Board) (figure, error) {
	acc, hasAcc := b.Axis(report.RoleQuality)
	ttft, hasTTFT := b.Axis(report.RoleLatency)
	fig := figure{ID: "pareto", Title: "Quality vs latency",
		Caption: "Accuracy against p95 TTFT per endpoint (up and left is better). Filled markers are on the Pareto front (no endpoint is at least as good on every figure and significantly better on one), joined by the line; hollow ones are dominated. Marker area is proportional to cost per 1k requests."}
	type point struct {
		e          *report.Entry
		x, y, cost float64
	}
	var pts []point
	maxCost := 0.0
	for _, e := range b.Endpoints {
		if !hasAcc || !hasTTFT {
			break
		}
		x, y := ttft.Value(e), acc.Value(e)
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		pts = append(pts, point{e, x, 100 * y, e.Overall.Cost.PerK})
		if c := e.Overall.Cost.PerK; c > maxCost {
			maxCost = c
		}
	}
	if len(pts) == 0 {
		fig.Missing = "Not drawn: no endpoint has both an accuracy (fixture answers checked) and a TTFT."
		return fig, nil
	}
	if maxCost == 0 {
		fig.Caption = strings.Replace(fig.Caption, "Marker area is proportional to cost per 1k requests.", "Cost was not measured (no price in the configuration), so markers are one size.", 1)
	}
	p := newPlot("", ttft.Label+" (ms)", acc.Label+" (%)")
	var xys plotter.XYLabels
	for _, pt := range pts {
		xys.XYs = append(xys.XYs, plotter.XY{X: pt.x, Y: pt.y})
		xys.Labels = append(xys.Labels, pt.e.Name)
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return fig, err
	}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		r := vg.Points(5)
		if maxCost > 0 && pts[i].cost > 0 {
			r = vg.Points(4 + 10*math.Sqrt(pts[i].cost/maxCost))
		}
		idx := slices.Index(b.Endpoints, pts[i].e)
		gs := draw.GlyphStyle{Color: plotutil.Color(idx), Radius: r, Shape: draw.RingGlyph{}}
		if pts[i].e.Pareto {
			gs.Shape = draw.CircleGlyph{}
		}
		return gs
	}
	var front plotter.XYs
	for _, pt := range pts {
		if pt.e.Pareto {
			front = append(front, plotter.XY{X: pt.x, Y: pt.y})
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].X < front[j].X })
	if len(front) > 1 {
		l, err := plotter.NewLine(front)
		if err != nil {
			return fig, err
		}
		l.Dashes, l.Color = []vg.Length{vg.Points(4), vg.Points(3)}, color.Gray{Y: 100}
		addData(p, l)
		p.Legend.Add("Pareto front", l)
	}
	labels, err := plotter.NewLabels(xys)
	if err != nil {
		return fig, err
	}
	labels.Offset = vg.Point{X: vg.Points(16), Y: vg.Points(-4)}
	addData(p, sc, labels)
	// Room for the labels and the largest marker.
	p.X.Min, p.X.Max = 0, niceCeil(maxOf(pts, func(pt point) float64 { return pt.x })*1.2)
	p.Y.Min, p.Y.Max = math.Max(0, minOf(pts, func(pt point) float64 { return pt.y })-10), 105
	fig.SVG, err = render(p)
	return fig, err
}

// ttftByInput plots p50 TTFT against the prompt length of levels labelled
// prompt_tokens=N, where a prompt-length sweep measured them.
func ttftByInput(b *report.Board) (figure, error) {
	fig := figure{ID: "ttft-input", Title: "TTFT vs input length",
		Caption: "p50 TTFT of successful warm requests at each prompt length (levels prompt_tokens=N), one panel per scenario, a line per endpoint."}
	panels, err := levelPanels(b, "prompt_tokens", "prompt tokens", "ttft p50 (ms)", func(st *stats.Stats) float64 { return st.TTFT.P50 })
	if err != nil {
		return fig, err
	}
	if len(panels) == 0 {
		fig.Missing = "Not measured: no scenario ran at two or more prompt_tokens=N levels (a prompt-length sweep)."
		return fig, nil
	}
	fig.SVG, fig.Wide, err = drawPanels(panels)
	return fig, err
}

// throughputByLoad plots output tokens per second against the load level,
// one panel per scenario run at several concurrency levels and one per
// scenario run at several rates.
func throughputByLoad(b *report.Board) (figure, error) {
	fig := figure{ID: "throughput-load", Title: "Throughput vs load",
		Caption: "Output tokens per second over the measured window at each concurrency level or rate (req/s), one panel per scenario run at two or more of them, a line per endpoint."}
	outTok := func(st *stats.Stats) float64 {
		if st.Wall <= 0 {
			return math.NaN()
		}
		return st.OutTokPerSec
	}
	panels, err := levelPanels(b, "concurrency", "concurrency", "out-tok/s", outTok)
	if err != nil {
		return fig, err
	}
	byRate, err := levelPanels(b, "rate", "rate (req/s)", "out-tok/s", outTok)
	if err != nil {
		return fig, err
	}
	panels = append(panels, byRate...)
	if len(panels) == 0 {
		fig.Missing = "Not measured: no scenario ran at two or more concurrency levels or rates."
		return fig, nil
	}
	fig.SVG, fig.Wide, err = drawPanels(panels)
	return fig, err
}

// levelPanels makes one panel per scenario that ran at two or more values
// of the level label key: f of the board's verdict of each level, a line
// per endpoint — per endpoint and the level's other labels, where the
// levels cross key with another (prompt_tokens × concurrency), so that a
// line shows one load, not a pool of several. Scenarios are not pooled
// either: their answers differ in length, so a pool would show the mix,
// not the load.
func levelPanels(b *report.Board, key, xlabel, ylabel string, f func(*stats.Stats) float64) ([]*plot.Plot, error) {
	var panels []*plot.Plot
	for _, scenario := range b.Scenarios {
		values := map[float64]bool{}
		for _, v := range b.Verdicts {
			if x, ok := v.Level.Float(key); ok && v.Scenario == scenario {
				values[x] = true
			}
		}
		if len(values) < 2 {
			continue
		}
		p := newPlot(scenario, xlabel, ylabel)
		for i, e := range b.Endpoints {
			lines := map[string]plotter.XYs{} // by the level's other labels
			for _, v := range b.Verdicts {
				x, ok := v.Level.Float(key)
				if !ok || v.Scenario != scenario || v.Endpoint != e.Name {
					continue
				}
				if y := f(v.Stats); !math.IsNaN(y) {
					rest := otherLabels(v.Level, key)
					lines[rest] = append(lines[rest], plotter.XY{X: x, Y: y})
				}
			}
			rests := make([]string, 0, len(lines))
			for r := range lines {
				rests = append(rests, r)
			}
			sort.Strings(rests)
			for j, rest := range rests {
				pts := lines[rest]
				sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
				l, dots, err := plotter.NewLinePoints(pts)
				if err != nil {
					return nil, err
				}
				l.Color, dots.Color, dots.Shape = plotutil.Color(i), plotutil.Color(i), draw.CircleGlyph{}
				l.Dashes = plotutil.Dashes(j)
				addData(p, l, dots)
				p.Legend.Add(strings.TrimSpace(e.Name+" "+rest), l, dots)
			}
		}
		p.Y.Min = 0
		panels = append(panels, p)
	}
	return panels, nil
}

// otherLabels is the level without its key label: "concurrency=4" of
// "concurrency=4/prompt_tokens=1024" without prompt_tokens.
func otherLabels(l sample.Level, key string) string {
	var out []string
	for _, lb := range l.Labels() {
		if lb.Key != key {
			out = append(out, lb.Key+"="+lb.Value)
		}
	}
	return strings.Join(out, " ")
}

// drawPanels draws one panel as a plot of the usual size, several side
// by side across the page (wide).
func drawPanels(panels []*plot.Plot) (svg []byte, wide bool, err error) {
	if len(panels) == 1 {
		svg, err = render(panels[0])
		return svg, false, err
	}
	for _, p := range panels[1:] {
		p.Legend = plot.NewLegend() // the first panel's legend serves all
	}
	svg, err = renderPanels(panels)
	return svg, true, err
}

// renderPanels tiles plots three to a row, aligned, as one SVG.
func renderPanels(panels []*plot.Plot) ([]byte, error) {
	cols := min(3, len(panels))
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(panels) {
				grid[r][c] = panels[i]
			}
		}
	}
	t := newTagger(2*width, vg.Length(rows)*height*0.9)
	mm := vg.Millimeter
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 4 * mm, PadY: 4 * mm, PadTop: 2 * mm, PadBottom: 2 * mm, PadLeft: 2 * mm, PadRight: 2 * mm}
	// The first panel's legend serves all, beside the grid.
	drawBeside(t, draw.New(t), takeLegend(panels[0]), tiles.PadTop+titleHeight(panels[0]), func(area draw.Canvas) {
		canvases := plot.Align(grid, tiles, area)
		for r := range grid {
			for col := range grid[r] {
				if grid[r][col] != nil {
					grid[r][col].Draw(canvases[r][col])
				}
			}
		}
	})
	return t.svg()
}

// errorKinds draws, per endpoint, its failed requests by kind as a share
// of the requests it attempted.
func errorKinds(b *report.Board) (figure, error) {
	fig := figure{ID: "errors", Title: "Errors by kind",
		Caption: "Failed requests of each kind as a share of the warm requests attempted, per endpoint."}
	var kinds []sample.ErrorKind
	for _, k := range sample.Kinds {
		for _, e := range b.Endpoints {
			if e.Overall.Stats.Errors[k] > 0 && !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	if len(kinds) == 0 {
		total := 0
		for _, e := range b.Endpoints {
			total += e.Overall.Stats.Attempted
		}
		fig.Missing = fmt.Sprintf("No failed request among the %d warm requests of every endpoint.", total)
		return fig, nil
	}
	p := newPlot("", "", "share of requests (%)")
	names := make([]string, len(b.Endpoints))
	barWidth := vg.Points(math.Min(18, 220/float64(len(kinds)*len(b.Endpoints))))
	highest := 0.0
	for i, e := range b.Endpoints {
		names[i] = e.Name
	}
	for j, k := range kinds {
		vals := make(plotter.Values, len(b.Endpoints))
		for i, e := range b.Endpoints {
			if st := e.Overall.Stats; st.Attempted > 0 {
				vals[i] = 100 * float64(st.Errors[k]) / float64(st.Attempted)
				highest = math.Max(highest, vals[i])
			}
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return fig, err
		}
		bars.Color, bars.LineStyle.Width = plotutil.Color(j), 0
		bars.Offset = barWidth * vg.Length(float64(j)-float64(len(kinds)-1)/2)
		addData(p, bars)
		p.Legend.Add(string(k), bars)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min = 0
	p.Y.Max = niceCeil(1.1 * highest) // round ticks, room above the tallest bar
	var err error
	fig.SVG, err = render(p)
	return fig, err
}

func maxOf[T any](xs []T, f func(T) float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, f(x))
	}
	return m
}

func minOf[T any](xs []T, f func(T) float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, f(x))
	}
	return m
}

// logTicks marks a log axis at 1, 2 and 5 times each power of ten, labelled,
// so that a latency axis spanning 20 to 400 ms has more than one number.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
			}
		}
	}
	if len(out) < 2 {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	return out
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten, so that an
// axis ending there has round ticks.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
