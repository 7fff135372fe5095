package report

import "time"

// Timeline is what one endpoint's server said over a run, in time, for
// the report's plots: a line per quantity read (queue depth, running
// requests, KV usage, memory), and the spans of the levels the run sent,
// so that a plot marks which load each stretch was under. The command
// makes it from the server file's readings (package server).
type Timeline struct {
	Endpoint string
	Series   []TimeSeries
	Levels   []Span
}

// TimeSeries is one quantity over time.
type TimeSeries struct {
	Quantity string // one of the Quantities
	Points   []TimePoint
}

// TimePoint is one reading of a quantity.
type TimePoint struct {
	At    time.Time
	Value float64
}

// Span is one level's measured requests: from the reading before them
// to the one after.
type Span struct {
	Scenario, Level string
	From, To        time.Time
}

// The quantities a timeline holds. Queue depth and running requests
// share a plot (both in requests), and so do the memories (MB).
const (
	QuantityQueue         = "queue depth"
	QuantityRunning       = "running requests"
	QuantityKV            = "KV-cache usage (%)"
	QuantityModelMemory   = "model memory"
	QuantityProcessMemory = "process memory"
)

// Of returns the timeline's points of a quantity, nil without any.
func (tl Timeline) Of(quantity string) []TimePoint {
	for _, s := range tl.Series {
		if s.Quantity == quantity {
			return s.Points
		}
	}
	return nil
}
