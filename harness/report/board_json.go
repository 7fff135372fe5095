package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
)

// The JSON form of a board. Its fields are stable (README, "Choosing a
// model"): a figure is keyed by its benchmark unit from the metric table
// (ttft-p95-ms, accuracy-%), and null when it was not measured, never 0.
type boardJSON struct {
	Scenarios      []string       `json:"scenarios"`
	Levels         []string       `json:"levels"`
	Alpha          float64        `json:"alpha"`
	PairAlpha      float64        `json:"pair_alpha"` // alpha over the pairs of endpoints (Bonferroni)
	Prefer         Prefer         `json:"prefer"`
	Compared       []string       `json:"compared"`
	NotCompared    []string       `json:"not_compared"`
	Endpoints      []endpointJSON `json:"endpoints"`
	Ranks          []rankJSON     `json:"ranks"`
	Recommendation recommendJSON  `json:"recommendation"`
}

type endpointJSON struct {
	Name            string           `json:"name"`
	Model           string           `json:"model"`
	MeetsObjectives bool             `json:"meets_objectives"`
	Violations      []string         `json:"violations"`
	NotApplicable   []string         `json:"not_applicable"`
	Pareto          bool             `json:"pareto"`
	DominatedBy     []dominationJSON `json:"dominated_by"`
	CostPer1k       *float64         `json:"cost_per_1k"`
	Currency        string           `json:"currency,omitempty"`
	CostBasis       string           `json:"cost_basis,omitempty"` // "tokens" or "hour"
	CostNote        string           `json:"cost_note,omitempty"`
	Overall         rowJSON          `json:"overall"`
	Scenarios       []rowJSON        `json:"scenarios"`
}

type dominationJSON struct {
	Endpoint string   `json:"endpoint"`
	Better   []string `json:"better"`
}

type rowJSON struct {
	Scenario        string              `json:"scenario,omitempty"`
	N               int                 `json:"n"`
	Figures         map[string]*float64 `json:"figures"`
	CostPer1k       *float64            `json:"cost_per_1k"`
	MeetsObjectives bool                `json:"meets_objectives"`
	Violated        int                 `json:"violated"`
	NotApplicable   string              `json:"not_applicable,omitempty"`
}

// rankJSON lists the endpoints best first, in groups of ties;
// NotComparable lists the neighbours in that order that cannot be
// compared (costs in two currencies): their order means nothing.
type rankJSON struct {
	Figure        string      `json:"figure"`
	Groups        [][]string  `json:"groups"`
	NotComparable [][2]string `json:"not_comparable,omitempty"`
}

type recommendJSON struct {
	Endpoint *string `json:"endpoint"`
	Reason   string  `json:"reason"`
}

// JSON writes the board as one indented JSON document.
func (b *Board) JSON(w io.Writer) error {
	out := boardJSON{Scenarios: b.Scenarios, Levels: make([]string, len(b.Levels)), Alpha: b.Alpha, PairAlpha: b.PairAlpha(), Prefer: b.Prefer,
		Compared: labels(b.Axes), NotCompared: b.NotCompared, Recommendation: recommendJSON{Reason: b.Recommendation}}
	if out.NotCompared == nil {
		out.NotCompared = []string{}
	}
	for i, l := range b.Levels {
		out.Levels[i] = string(l)
	}
	if b.Recommended != "" {
		out.Recommendation.Endpoint = &b.Recommended
	}
	for _, e := range b.Endpoints {
		ej := endpointJSON{Name: e.Name, Model: e.Model, MeetsObjectives: e.Meets, Violations: e.Violations, Pareto: e.Pareto,
			DominatedBy: []dominationJSON{}, Overall: rowOf(e.Overall)}
		if ej.Violations == nil {
			ej.Violations = []string{}
		}
		ej.NotApplicable = append([]string{}, e.NotApplicable...)
		for _, d := range e.DominatedBy {
			ej.DominatedBy = append(ej.DominatedBy, dominationJSON{Endpoint: d.By, Better: d.Better})
		}
		c := e.Overall.Cost
		ej.CostPer1k, ej.Currency, ej.CostNote = number(c.PerK), c.Currency, c.Note()
		if c.Currency != "" {
			ej.CostBasis = map[bool]string{true: "hour", false: "tokens"}[c.Hourly]
		}
		for _, r := range e.Scenarios {
			ej.Scenarios = append(ej.Scenarios, rowOf(r))
		}
		out.Endpoints = append(out.Endpoints, ej)
	}
	for _, r := range b.Ranks {
		rj := rankJSON{Figure: r.Axis.Label}
		for i, e := range r.Order {
			if i == 0 || !r.Tied[i-1] {
				rj.Groups = append(rj.Groups, nil)
			}
			rj.Groups[len(rj.Groups)-1] = append(rj.Groups[len(rj.Groups)-1], e.Name)
			if i > 0 && r.Unknown[i-1] {
				rj.NotComparable = append(rj.NotComparable, [2]string{r.Order[i-1].Name, e.Name})
			}
		}
		out.Ranks = append(out.Ranks, rj)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(escape.JSON(buf.Bytes()))
	return err
}

func rowOf(r Row) rowJSON {
	rj := rowJSON{Scenario: r.Scenario, N: r.Stats.Attempted, Figures: map[string]*float64{}, CostPer1k: number(r.Cost.PerK),
		MeetsObjectives: r.Meets, Violated: r.Failed, NotApplicable: r.NotApplicable}
	for _, c := range Columns() {
		v, ok := c.Bench(r.Stats)
		if !ok {
			rj.Figures[c.Unit()] = nil
			continue
		}
		rj.Figures[c.Unit()] = &v
	}
	return rj
}

// number is v, or nil (JSON null) when it is not a finite number: JSON
// has no NaN or infinity, and neither is a measurement.
func number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// CSV writes one line per endpoint × scenario, and one per endpoint with
// scenario "all": figures in their benchmark units, empty when not measured.
func (b *Board) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"endpoint", "model", "scenario", "n"}
	for _, c := range Columns() {
		head = append(head, c.Unit())
	}
	head = append(head, "cost_per_1k", "currency", "meets_objectives", "pareto", "dominated_by")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, e := range b.Endpoints {
		var by []string
		for _, d := range e.DominatedBy {
			by = append(by, escape.Text(d.By))
		}
		for _, r := range append([]Row{e.Overall}, e.Scenarios...) {
			sc := r.Scenario
			if sc == "" {
				sc = "all"
			}
			line := []string{escape.CSV(e.Name), escape.CSV(e.Model), escape.CSV(sc), strconv.Itoa(r.Stats.Attempted)}
			for _, c := range Columns() {
				v, ok := c.Bench(r.Stats)
				line = append(line, map[bool]string{true: strconv.FormatFloat(v, 'g', 6, 64), false: ""}[ok])
			}
			cost := ""
			if r.Cost.Measured() {
				cost = strconv.FormatFloat(r.Cost.PerK, 'g', 6, 64)
			}
			meets := fmt.Sprint(r.Meets)
			if r.NotApplicable != "" {
				meets = "n/a"
			}
			line = append(line, cost, escape.CSV(r.Cost.Currency), meets, fmt.Sprint(e.Pareto), escape.CSV(strings.Join(by, " ")))
			if err := cw.Write(line); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
