package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
)

// Price is what an endpoint costs: per million tokens (hosted APIs), or
// per hour of the machine serving it (self-hosted), in Currency. Cost per
// 1k requests is computed from it and the measured token counts or wall
// time, as METRICS.md defines it (package report).
type Price struct {
	InputPerMTok  float64 // per million prompt tokens
	OutputPerMTok float64 // per million output tokens
	// Hourly: the endpoint is priced by the hour (PerHour), not by token.
	Hourly   bool
	PerHour  float64
	Currency string // as written: USD, EUR
}

// Cost is what 1000 requests of some samples cost at an endpoint's price,
// as METRICS.md defines it: 1000 × the mean over measured requests of
// (prompt_tokens × input price + output_tokens × output price) / 1e6, or
// per-hour price × wall time / requests × 1000 for a self-hosted endpoint.
// It is computed from the measured token counts, never from a guess: a
// request whose counts are unknown is left out and counted, and a cost
// over no request is NaN, shown as not measured.
type Cost struct {
	PerK     float64 // per 1000 requests, in Currency; NaN when not measured
	Currency string
	Hourly   bool // from the per-hour price and the measured wall time
	// Priced is the number of measured requests the figure is over;
	// Unpriced those left out (failed requests, whose token counts are
	// unknown, or answers without a prompt token count).
	Priced, Unpriced int
	// Estimated is how many priced requests had their output tokens
	// counted from the stream because the server sent no usage (0 for a
	// per-hour price, which reads no token count).
	Estimated int
	Why       string // why PerK is not measured

	// perRequest holds each priced request's cost (per-hour: its share of
	// the machine's time), for the significance tests.
	perRequest []float64
}

// CostOf prices the measured (warm, not warm-up) samples at p; p nil is
// an endpoint without a price in the configuration. st is the samples'
// summary, whose wall time and requests a per-hour price reads (nil: they
// are summarised here).
func CostOf(samples []sample.Sample, st *stats.Stats, p *Price) Cost {
	c := Cost{PerK: math.NaN()}
	if p == nil {
		c.Why = "no price in the configuration"
		return c
	}
	c.Currency, c.Hourly = p.Currency, p.Hourly
	if p.Hourly {
		if st == nil {
			st = stats.Summarize(samples, nil)
		}
		return hourly(c, samples, st, p.PerHour)
	}
	noPrompt := 0
	var sum float64
	for i := range samples {
		s := &samples[i]
		if !s.Measured() {
			continue
		}
		switch {
		case !s.OK() || s.TokenSource == "":
			c.Unpriced++
			continue
		case p.InputPerMTok > 0 && s.PromptTokens <= 0:
			c.Unpriced++
			noPrompt++
			continue
		}
		v := (float64(s.PromptTokens)*p.InputPerMTok + float64(s.OutputTokens)*p.OutputPerMTok) / 1e6
		sum += v
		c.perRequest = append(c.perRequest, v)
		c.Priced++
		if s.TokenSource == sample.TokensEstimated {
			c.Estimated++
		}
	}
	if c.Priced == 0 {
		c.Why = "no successful request with token counts"
		if noPrompt > 0 {
			c.Why = "the server sent no prompt token counts (usage)"
		}
		return c
	}
	return finite(c, 1000*sum/float64(c.Priced))
}

// finite sets c's figure to perK when it is a number: a price so high
// that the cost overflows is not a measurement, and says why.
func finite(c Cost, perK float64) Cost {
	if math.IsInf(perK, 0) || math.IsNaN(perK) {
		c.Why = "the price overflows: the cost per 1000 requests is beyond 1.8e308 (a price out of range in the configuration?)"
		c.perRequest = nil
		return c
	}
	c.PerK = perK
	return c
}

// hourly prices the machine's time: per hour × the measured wall time /
// requests (from st, the samples' summary). A request's own share, for
// the tests, is its duration divided by the requests in flight beside it
// (its concurrency level): the shares of a closed-loop run add up to about
// its wall time. Token counts do not enter it, so none is estimated.
func hourly(c Cost, samples []sample.Sample, st *stats.Stats, perHour float64) Cost {
	if st.Attempted == 0 || st.Wall <= 0 {
		c.Why = "no measured requests"
		return c
	}
	c.Priced = st.Attempted
	for i := range samples {
		s := &samples[i]
		if !s.Measured() {
			continue
		}
		inFlight := max(1, float64(s.Level.Concurrency()))
		c.perRequest = append(c.perRequest, perHour*s.Total.Hours()/inFlight)
	}
	return finite(c, 1000*perHour*st.Wall.Hours()/float64(st.Attempted))
}

// Measured reports whether the cost is a figure.
func (c Cost) Measured() bool { return !math.IsNaN(c.PerK) }

// String is the cost as a table shows it: "0.0123 USD", "~0.0123 USD"
// when output tokens were estimated, "–" when not measured.
func (c Cost) String() string {
	if !c.Measured() {
		return "–"
	}
	s := Money(c.PerK) + " " + c.Currency
	if c.Estimated > 0 {
		s = "~" + s
	}
	return s
}

// Note says what the figure rests on, when it is not plain: "output
// tokens estimated for 12 of 40", "3 failed requests not priced".
func (c Cost) Note() string {
	var parts []string
	if !c.Measured() {
		return "not measured: " + c.Why
	}
	if c.Hourly {
		parts = append(parts, "per hour × measured wall time / requests")
	}
	if c.Estimated > 0 {
		parts = append(parts, fmt.Sprintf("output tokens estimated (no usage) for %d of %d", c.Estimated, c.Priced))
	}
	if c.Unpriced > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d requests not priced (failed, or no token counts)", c.Unpriced, c.Priced+c.Unpriced))
	}
	return strings.Join(parts, "; ")
}

// Money formats an amount with three significant digits, never in
// exponent form: 0.000123, 0.0123, 1.23, 123.
func Money(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v == 0 || math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	digits := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', digits, 64)
}
