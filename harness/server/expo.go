package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llmsla/llmsla/harness/escape"
)

// A /metrics body is read line by line and filtered before it is parsed:
// the families the figures read are kept whole (up to MaxSeriesPerFamily
// series each), the others up to MaxFamilies families and MaxSeries
// series, and the rest is counted and dropped as it streams past. So a
// server exposing 100,000 series costs one line of memory per series
// read, not a copy, and its reading stays a bounded line of the file.
// What is kept is parsed by the Prometheus project's own text parser
// (expfmt), which refuses a malformed line, a second TYPE for a family
// and a sample that does not fit its family's type.
const (
	MaxBody            = 64 << 20 // bytes of one /metrics body; more is a failed reading
	MaxExpoLine        = 64 << 10 // one line of it
	MaxFamilies        = 128      // families kept beyond the figures'
	MaxSeries          = 1024     // series kept beyond the figures' families
	MaxSeriesPerFamily = 64       // series kept of any one family
)

// readExposition reads a Prometheus text exposition into rd: its size,
// how many families and series it held, and the series kept.
func readExposition(body io.Reader, rd *Reading) error {
	f := filter{br: bufio.NewReaderSize(io.LimitReader(body, MaxBody+1), 64<<10)}
	if err := f.run(); err != nil {
		rd.Bytes = f.read
		return err
	}
	rd.Bytes, rd.Families, rd.SeriesSeen, rd.Sampled = f.read, f.families, f.seen, f.sampled
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(f.kept.Bytes()))
	if err != nil {
		return fmt.Errorf("not the Prometheus text format: %w", err)
	}
	rd.Series, err = seriesOf(fams)
	return err
}

// filter is the state of one pass over an exposition.
type filter struct {
	br   *bufio.Reader
	kept bytes.Buffer
	read int64

	families, seen int
	sampled        bool
	other          int // families kept beyond the figures'
	otherSeries    int

	cur     string              // the family the lines are of
	curBase []byte              // cur without a counter's _total
	keep    bool                // whether cur is kept
	known   bool                // cur is a family the figures read
	inCur   map[string]struct{} // series of cur kept
	full    bool                // cur keeps no more series
}

func (f *filter) run() error {
	for {
		line, err := f.line()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		f.take(line)
	}
}

// line returns the next line, without its end.
func (f *filter) line() ([]byte, error) {
	line, err := f.br.ReadSlice('\n')
	f.read += int64(len(line))
	if f.read > MaxBody {
		return nil, fmt.Errorf("a body over %d MiB: not read further", MaxBody>>20)
	}
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || len(line) > MaxExpoLine:
		return nil, fmt.Errorf("a line over %d KiB", MaxExpoLine>>10)
	case err == io.EOF && len(line) == 0:
		return nil, io.EOF
	case err != nil && err != io.EOF:
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

func (f *filter) take(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return
	}
	if t[0] == '#' {
		fields := strings.Fields(string(t))
		if len(fields) >= 3 && (fields[1] == "HELP" || fields[1] == "TYPE") {
			if fields[2] != f.cur {
				f.family(fields[2])
			}
			f.write(line)
		}
		return // other comments (OpenMetrics' # EOF) say nothing
	}
	name, labels := splitSample(t)
	if f.cur == "" || !f.ofFamily(name) {
		f.family(string(name))
	}
	part := bytes.HasSuffix(name, suffixBucket) || bytes.HasSuffix(name, suffixSum) || bytes.HasSuffix(name, suffixCreated)
	if !part && !bytes.Contains(labels, labelQuantile) {
		f.seen++ // one line a series: a histogram's _count, a gauge's value
	}
	if !f.keep {
		return
	}
	if f.full && !part && !bytes.HasSuffix(name, suffixCount) {
		// A line of its own, not a bucket, sum or count of a series kept:
		// a new series, and the family has no room left. (No allocation
		// here: a server of 100,000 series goes past this line.)
		f.sampled = true
		return
	}
	id := seriesID(string(labels))
	if _, ok := f.inCur[id]; !ok {
		if f.full {
			f.sampled = true
			return
		}
		f.inCur[id] = struct{}{}
		if !f.known {
			f.otherSeries++
		}
		f.full = len(f.inCur) >= MaxSeriesPerFamily || (!f.known && f.otherSeries >= MaxSeries)
	}
	f.write(line)
}

var (
	suffixBucket  = []byte("_bucket")
	suffixSum     = []byte("_sum")
	suffixCount   = []byte("_count")
	suffixCreated = []byte("_created")
	labelQuantile = []byte(`quantile="`)
)

// family starts the lines of family name: kept if the figures read it,
// or while the limits allow.
func (f *filter) family(name string) {
	f.families++
	f.cur, f.curBase, f.inCur = name, []byte(strings.TrimSuffix(name, "_total")), map[string]struct{}{}
	f.known = figureFamily(name)
	f.keep = f.known || f.other < MaxFamilies
	f.full = !f.known && f.otherSeries >= MaxSeries
	if !f.keep {
		f.sampled = true
	} else if !f.known {
		f.other++
	}
}

func (f *filter) write(line []byte) {
	if f.keep {
		f.kept.Write(line)
		f.kept.WriteByte('\n')
	}
}

// ofFamily reports whether a sample named name belongs to the current
// family: its name, or its name with a histogram's, summary's or
// counter's suffix.
func (f *filter) ofFamily(name []byte) bool {
	if string(name) == f.cur {
		return true
	}
	rest, ok := bytes.CutPrefix(name, f.curBase)
	if !ok {
		return false
	}
	switch string(rest) {
	case "_bucket", "_sum", "_count", "_total", "_created":
		return true
	}
	return false
}

// splitSample returns a sample line's metric name and its labels (what is
// between the braces, nothing without).
func splitSample(line []byte) (name, labels []byte) {
	i := bytes.IndexAny(line, "{ \t")
	if i < 0 {
		return line, nil
	}
	name = line[:i]
	if line[i] != '{' {
		return name, nil
	}
	rest := line[i+1:]
	return name, rest[:labelsEnd(rest)]
}

// labelsEnd is the index of the brace closing a label set, quoted values
// (which may hold braces and escaped quotes) skipped; len(s) without one.
func labelsEnd(s []byte) int {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == '}':
			return i
		}
	}
	return len(s)
}

// seriesID is a label set without the histogram's le and the summary's
// quantile: the lines of one series share it.
func seriesID(labels string) string {
	for _, l := range []string{`le="`, `quantile="`} {
		i := strings.Index(labels, l)
		if i < 0 || (i > 0 && labels[i-1] != ',' && labels[i-1] != ' ') {
			continue
		}
		end := strings.IndexByte(labels[i+len(l):], '"')
		if end < 0 {
			continue // malformed: the parser says so
		}
		rest := labels[i+len(l)+end+1:]
		labels = strings.Trim(labels[:i], ", ") + "," + strings.Trim(rest, ", ")
	}
	return strings.Trim(labels, ",")
}

// seriesOf turns the parsed families into series, sorted by family and
// labels. Summaries are left out (no figure reads one), and so are values
// that are not numbers (NaN, ±Inf), which JSON cannot hold. A histogram
// whose cumulative counts fall is no histogram: the reading fails.
func seriesOf(fams map[string]*dto.MetricFamily) ([]Series, error) {
	var out []Series
	for name, fam := range fams {
		for _, m := range fam.GetMetric() {
			s := Series{Name: name, Labels: labelText(m.GetLabel())}
			switch fam.GetType() {
			case dto.MetricType_GAUGE:
				s.Type, s.Value = Gauge, m.GetGauge().GetValue()
			case dto.MetricType_COUNTER:
				s.Type, s.Value = Counter, m.GetCounter().GetValue()
			case dto.MetricType_UNTYPED:
				s.Type, s.Value = Untyped, m.GetUntyped().GetValue()
			case dto.MetricType_HISTOGRAM:
				s.Type = Histogram
				if err := histogramOf(m.GetHistogram(), &s); err != nil {
					return nil, fmt.Errorf("%s{%s}: %w", name, s.Labels, err)
				}
			default:
				continue
			}
			if finite(s.Value) && finite(s.Sum) {
				out = append(out, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	for i := 1; i < len(out); i++ {
		if out[i].key() == out[i-1].key() {
			// The parser keeps both; which one is the server's figure is not
			// known.
			return nil, fmt.Errorf("not the Prometheus text format: series %s given twice", escape.Text(out[i].key()))
		}
	}
	return out, nil
}

// histogramOf reads a classic histogram's buckets (cumulative, sorted by
// the parser) into s, and checks them as Check does.
func histogramOf(h *dto.Histogram, s *Series) error {
	for _, b := range h.GetBucket() {
		le, n := b.GetUpperBound(), float64(b.GetCumulativeCount())
		if math.IsInf(le, 1) {
			continue // the count is the +Inf bucket
		}
		if !finite(le) {
			return fmt.Errorf("a bucket bound of %g", le)
		}
		s.Le = append(s.Le, le)
		s.Counts = append(s.Counts, n)
	}
	s.Counts = append(s.Counts, float64(h.GetSampleCount()))
	s.Sum = h.GetSampleSum()
	return s.checkBuckets()
}

func labelText(labels []*dto.LabelPair) string {
	parts := make([]string, 0, len(labels))
	for _, l := range labels {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
