package server

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llmsla/llmsla/harness/escape"
)

// Check refuses a reading no scrape can have given: an unknown source or
// phase, a name or label that would forge a line where it is printed, a
// time no run has, a negative count or increase, a histogram whose
// buckets are out of order. Every reader of a server file calls it, so
// that what the figures read is what a scrape read.
func (r *Reading) Check() error {
	if !slices.Contains([]string{SourceMetrics, SourceOllama, SourceProcess}, r.Source) {
		return fmt.Errorf("source: %q (allowed: %s, %s, %s)", r.Source, SourceMetrics, SourceOllama, SourceProcess)
	}
	if !slices.Contains([]Phase{Before, During, After}, r.Phase) {
		return fmt.Errorf("phase: %q (allowed: before, during, after)", r.Phase)
	}
	for _, f := range []struct{ key, v string }{
		{"scenario", r.Scenario}, {"endpoint", r.Endpoint}, {"run", r.Run}, {"level", string(r.Level)}, {"shard", r.Shard}, {"error", r.Err},
	} {
		if err := escape.CheckLine(f.v); f.v != "" && err != nil {
			return fmt.Errorf("%s: %w", f.key, err)
		}
	}
	if r.Scenario == "" || r.Endpoint == "" || r.Run == "" {
		return fmt.Errorf("not a reading: every reading has scenario, endpoint and run")
	}
	if r.At.Year() < 2000 || r.At.Year() >= 2200 || r.Took < 0 || r.Took > time.Hour { // the years a sample's t0 may be in
		return fmt.Errorf("t %s, took_ns %s: not when and how long a reading took", r.At, r.Took)
	}
	if r.Bytes < 0 || r.Bytes > MaxBody+MaxExpoLine || r.Families < 0 || r.SeriesSeen < 0 || r.Sent < 0 {
		return fmt.Errorf("bytes %d, families %d, series_seen %d, sent %d: out of range", r.Bytes, r.Families, r.SeriesSeen, r.Sent)
	}
	if r.Err != "" && len(r.Series) > 0 {
		return fmt.Errorf("a failed reading (%s) with series", r.Err)
	}
	for i := range r.Series {
		if err := r.Series[i].check(); err != nil {
			return fmt.Errorf("series[%d] %s: %w", i, escape.Text(r.Series[i].Name), err)
		}
	}
	return nil
}

// keepValid holds a reading a source just took to the file's rules, so
// that what is written reads back: a series that fails Check is left out
// (Sampled) when no figure reads its family, and fails the reading when
// one does — a figure is measured from what the server said, or not at
// all.
func (r *Reading) keepValid() error {
	kept := r.Series[:0]
	for i := range r.Series {
		s := r.Series[i]
		err := s.check()
		if err == nil {
			kept = append(kept, s)
			continue
		}
		if _, ok := figureOf(r.Source, s.Name); ok {
			return fmt.Errorf("%s: %w", escape.Text(s.Name), err)
		}
		r.Sampled = true
	}
	r.Series = kept
	return nil
}

// maxLabels bounds a series' label set.
const maxLabels = 4 << 10

func (s *Series) check() error {
	if !model.LegacyValidation.IsValidMetricName(s.Name) {
		return fmt.Errorf("not a metric name")
	}
	if len(s.Labels) > maxLabels || strings.ContainsAny(s.Labels, "\n\r\x00\x1b") {
		return fmt.Errorf("labels: longer than %d bytes or holding a control character", maxLabels)
	}
	switch s.Type {
	case Gauge, Untyped:
		return nil
	case Counter:
		if s.Value < 0 {
			return fmt.Errorf("a counter's increase of %g (allowed: ≥ 0)", s.Value)
		}
		return nil
	case Histogram:
		return s.checkBuckets()
	}
	return fmt.Errorf("type %q (allowed: gauge, counter, histogram, untyped)", s.Type)
}

// checkBuckets: bounds rising, one cumulative count per bound and the
// total, never falling, never negative.
func (s *Series) checkBuckets() error {
	if len(s.Counts) != len(s.Le)+1 {
		return fmt.Errorf("%d counts for %d bounds (allowed: one per bound and the total)", len(s.Counts), len(s.Le))
	}
	for i := range s.Le {
		if i > 0 && s.Le[i] <= s.Le[i-1] {
			return fmt.Errorf("le %g after %g: the bounds must rise", s.Le[i], s.Le[i-1])
		}
	}
	for i, c := range s.Counts {
		if c < 0 || (i > 0 && c < s.Counts[i-1]) {
			return fmt.Errorf("cumulative counts %v: negative or falling", s.Counts)
		}
	}
	return nil
}
