package server

import (
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Phase says when, relative to a level's measured requests, a reading was
// taken.
type Phase string

const (
	Before Phase = "before" // after the cold request and the warm-up, as the measured requests start
	During Phase = "during" // every interval while they run
	After  Phase = "after"  // once they have all ended
)

// The sources a reading comes from.
const (
	SourceMetrics = "metrics" // a Prometheus /metrics
	SourceOllama  = "ollama"  // Ollama's /api/ps
	SourceProcess = "process" // the server's process on this machine (/proc)
)

// The series types a reading holds, as the exposition's TYPE names them.
const (
	Gauge     = "gauge"
	Counter   = "counter"
	Histogram = "histogram"
	Untyped   = "untyped"
)

// Reading is one reading of a server's account, one line of the
// <run>.server.jsonl file: what a source said, when, for which level and
// run, or why it could not be read. Counters and histogram counts are
// increases since the run's previous reading of the same source (the
// totals in the reading before the level, which the increases start
// from); gauges are as read.
type Reading struct {
	Source   string       `json:"source"`
	Scenario string       `json:"scenario"`
	Endpoint string       `json:"endpoint"`
	Level    sample.Level `json:"level,omitempty"`
	Run      string       `json:"run"`
	Shard    string       `json:"shard,omitempty"`
	Phase    Phase        `json:"phase"`
	// At is when the reading was asked for; in memory it carries the
	// monotonic clock, written out the wall clock. Took is how long it
	// took, a failed one included.
	At   time.Time     `json:"t"`
	Took time.Duration `json:"took_ns"`
	Err  string        `json:"error,omitempty"`
	// Bytes is the size of the body read; Families and SeriesSeen how
	// many the exposition held. Series are those kept: every series of
	// the families the figures read, and of the others up to the limits
	// (MaxFamilies, MaxSeries, MaxSeriesPerFamily); Sampled says some
	// were left out.
	Bytes      int64    `json:"bytes,omitempty"`
	Families   int      `json:"families,omitempty"`
	SeriesSeen int      `json:"series_seen,omitempty"`
	Sampled    bool     `json:"sampled,omitempty"`
	Series     []Series `json:"series,omitempty"`
	// Sent is, on the reading after a level, the measured requests the
	// client sent over it.
	Sent int `json:"sent,omitempty"`
	// Reset names the counters whose value went back since the previous
	// reading (a restart): their increase is counted from 0.
	Reset []string `json:"reset,omitempty"`
}

// OK reports whether the reading was taken.
func (r *Reading) OK() bool { return r.Err == "" }

// Series is one series of a reading.
type Series struct {
	Name   string  `json:"name"`             // the family, as the exposition's TYPE line names it
	Labels string  `json:"labels,omitempty"` // name="value" pairs, sorted, the histogram's le left out
	Type   string  `json:"type"`
	Value  float64 `json:"value,omitempty"`
	// A histogram's upper bounds (+Inf left out) and cumulative counts,
	// one per bound and then the count of every observation, and its sum.
	Le     []float64 `json:"le,omitempty"`
	Counts []float64 `json:"counts,omitempty"`
	Sum    float64   `json:"sum,omitempty"`
}

// key identifies a series within its source.
func (s *Series) key() string { return s.Name + "{" + s.Labels + "}" }

// cumulative reports whether the series only grows: its value, or counts
// and sum, are reported as increases.
func (s *Series) cumulative() bool { return s.Type == Counter || s.Type == Histogram }
