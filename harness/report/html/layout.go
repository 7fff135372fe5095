package html

import (
	"bytes"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A plot's legend is drawn beside its data, never over it: gonum draws a
// legend inside the data area, at a corner, where a curve may pass (a
// throughput line at the top left, a CDF's tail). Here the legend gets a
// strip of its own, right of the data, or below it when its entries are
// too wide to leave the data room. The SVG marks what it drew, the data
// in <g class="data"> and the legend in <g class="legend">, so that a test
// in a browser can check from the laid-out page that no legend covers a
// point or a line.

// tagger is the SVG canvas of one figure, naming the groups drawn on it:
// vgsvg writes no class, so a tagged group is opened with a transform no
// plot writes otherwise, translate(0, 0), given its class once written.
type tagger struct {
	*vgsvg.Canvas
	tags []string
}

func newTagger(w, h vg.Length) *tagger { return &tagger{Canvas: vgsvg.New(w, h)} }

// marker is how vgsvg writes Translate(vg.Point{}).
const marker = `<g transform="translate(0, 0)">`

func (t *tagger) open(class string) {
	t.Push()
	t.Translate(vg.Point{})
	t.tags = append(t.tags, class)
}

func (t *tagger) close() { t.Pop() }

// svg is the figure's <svg> element, its tagged groups classed.
func (t *tagger) svg() ([]byte, error) {
	svg, err := svgOf(t.Canvas)
	if err != nil {
		return nil, err
	}
	parts := bytes.Split(svg, []byte(marker))
	if len(parts)-1 != len(t.tags) {
		return nil, fmt.Errorf("the SVG has %d groups at translate(0, 0), %d were tagged: the plotting library draws one of its own", len(parts)-1, len(t.tags))
	}
	var out bytes.Buffer
	out.Write(parts[0])
	for i, p := range parts[1:] {
		fmt.Fprintf(&out, `<g class="%s">`, t.tags[i])
		out.Write(p)
	}
	return out.Bytes(), nil
}

// dataLayer is a plotter of data (lines, points, bars, their labels),
// drawn in a group of class data when drawn on a tagger. It passes on the
// data range and glyph boxes, which the plot's axes and padding read.
type dataLayer struct{ plot.Plotter }

func (d dataLayer) Plot(c draw.Canvas, p *plot.Plot) {
	if t := taggerOf(c); t != nil {
		t.open("data")
		defer t.close()
	}
	d.Plotter.Plot(c, p)
}

// taggerOf is the tagger c draws on, nil when none: a cropped canvas
// wraps the one it was cropped from.
func taggerOf(c draw.Canvas) *tagger {
	for {
		switch x := c.Canvas.(type) {
		case *tagger:
			return x
		case draw.Canvas:
			c = x
		default:
			return nil
		}
	}
}

func (d dataLayer) DataRange() (xmin, xmax, ymin, ymax float64) {
	if r, ok := d.Plotter.(plot.DataRanger); ok {
		return r.DataRange()
	}
	return math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
}

func (d dataLayer) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	if g, ok := d.Plotter.(plot.GlyphBoxer); ok {
		return g.GlyphBoxes(p)
	}
	return nil
}

// addData adds plotters of data to p, each marked as data.
func addData(p *plot.Plot, ps ...plot.Plotter) {
	for _, x := range ps {
		p.Add(dataLayer{x})
	}
}

// legendShare is the most of a figure's width a legend beside the data
// may take; a wider one goes below.
const legendShare = 0.3

// takeLegend removes p's legend, so that p.Draw draws none, and returns it.
func takeLegend(p *plot.Plot) plot.Legend {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	return leg
}

// drawBeside draws the legend leg in a strip of area of its own and
// calls drawData with the rest, where the plots go; without entries, the
// whole area. top is how far below the area's top the legend starts: the
// height of a plot's title, to line up with the data.
func drawBeside(t *tagger, area draw.Canvas, leg plot.Legend, top vg.Length, drawData func(draw.Canvas)) {
	size := leg.Rectangle(area).Size()
	if size.X <= 0 {
		drawData(area)
		return
	}
	gap := 3 * vg.Millimeter
	leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
	rest, strip := area, area
	if size.X <= legendShare*area.Size().X {
		rest.Max.X = area.Max.X - size.X - gap
		strip.Min.X = rest.Max.X + gap
		strip.Max.Y -= top + gap // the first entry's ascent stays inside
	} else {
		// A gap under the last entry too, for its descent.
		strip.Min.Y = area.Min.Y + gap
		strip.Max.Y = strip.Min.Y + size.Y
		rest.Min.Y = strip.Max.Y + gap
	}
	drawData(rest)
	t.open("legend")
	leg.Draw(strip)
	t.close()
}

// titleHeight is the room p's title takes above its data.
func titleHeight(p *plot.Plot) vg.Length {
	if p.Title.Text == "" {
		return 0
	}
	return p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
}
