package verdict

import (
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/server"
)

// Servers are what the server files beside a run's samples hold: each
// level's figures, and what each endpoint's server said over time.
type Servers struct {
	Figures   objective.Servers
	Timelines []report.Timeline
	// Cut are the server files cut short (read with partial).
	Cut []error
}

// LoadServers reads the server files beside the samples files paths
// stand for (server.FileName: results/<run>.server.jsonl), every line
// checked. A run without one has no server figures; a file cut short is
// refused unless partial.
func LoadServers(paths []string, partial bool) (Servers, error) {
	files, err := sample.Files(paths)
	if err != nil {
		return Servers{}, err
	}
	readings, cut, err := server.ReadBeside(files, partial)
	if err != nil {
		return Servers{}, err
	}
	return Servers{Figures: server.Lookup(server.Figures(readings)), Timelines: timelines(readings), Cut: cut}, nil
}

// quantities maps the gauges of a reading to the report's quantities, and
// the unit each is shown in.
var quantities = []struct {
	gauge, quantity string
	scale           float64
}{
	{server.GaugeQueue, report.QuantityQueue, 1}, {server.GaugeRunning, report.QuantityRunning, 1},
	{server.GaugeKV, report.QuantityKV, 100}, {server.GaugeModel, report.QuantityModelMemory, 1 / metric.MB},
	{server.GaugeRSS, report.QuantityProcessMemory, 1 / metric.MB},
}

// timelines turns readings into each endpoint's timeline: its gauges over
// time, and the span of each run from its reading before to the one after.
func timelines(readings []server.Reading) []report.Timeline {
	byEndpoint := map[string]*report.Timeline{}
	var names []string
	spans := map[string]int{} // run → its span in its endpoint's Levels
	for i := range readings {
		rd := &readings[i]
		tl := byEndpoint[rd.Endpoint]
		if tl == nil {
			tl = &report.Timeline{Endpoint: rd.Endpoint}
			byEndpoint[rd.Endpoint] = tl
			names = append(names, rd.Endpoint)
		}
		run := rd.Endpoint + "\x00" + rd.Run + "\x00" + rd.Shard
		if i, ok := spans[run]; !ok {
			spans[run] = len(tl.Levels)
			tl.Levels = append(tl.Levels, report.Span{Scenario: rd.Scenario, Level: strings.ReplaceAll(string(rd.Level), "/", " "), From: rd.At, To: rd.At})
		} else if sp := &tl.Levels[i]; rd.At.After(sp.To) {
			sp.To = rd.At
		}
		if !rd.OK() {
			continue
		}
		g := rd.Gauges()
		for _, q := range quantities {
			if v, ok := g[q.gauge]; ok {
				addPoint(tl, q.quantity, report.TimePoint{At: rd.At, Value: v * q.scale})
			}
		}
	}
	slices.Sort(names)
	out := make([]report.Timeline, len(names))
	for i, n := range names {
		out[i] = *byEndpoint[n]
	}
	return out
}

func addPoint(tl *report.Timeline, quantity string, pt report.TimePoint) {
	for i := range tl.Series {
		if tl.Series[i].Quantity == quantity {
			tl.Series[i].Points = append(tl.Series[i].Points, pt)
			return
		}
	}
	tl.Series = append(tl.Series, report.TimeSeries{Quantity: quantity, Points: []report.TimePoint{pt}})
}
