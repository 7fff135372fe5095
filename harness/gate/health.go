package gate

import (
	"errors"
	"fmt"

	"github.com/llmsla/llmsla/harness/health"
	"github.com/llmsla/llmsla/harness/recording"
)

// compareHealth holds the two sides' clients to each other before any
// figure, as their provenance is (health.Compare): a benchmark recorded
// by a client beyond health.Default on either side, or by two clients
// whose health differs beyond health.DefaultTolerance, is refused
// (recording.ErrUnusable, naming the side, the benchmark and the figure):
// a saturated client is never an endpoint's regression. A side recorded
// without the client's figures (before llmsla measured them) is said in a
// warning, and the other side is still held to the limits. With
// AllowBusy the refusals are warnings, and the report says so.
func compareHealth(rep *Report, sides [2]*recording.Values, opts Options) error {
	names := [2]string{"BASE " + rep.Base, "NEW " + rep.New}
	without := [2]bool{}
	for _, bench := range sides[1].BenchOrder {
		if !sides[0].Benches[bench] {
			continue
		}
		var figs [2]health.Figures
		var ok [2]bool
		for i, s := range sides {
			figs[i], ok[i] = health.FromUnits(benchValues(s, bench))
			without[i] = without[i] || !ok[i]
		}
		var err error
		switch {
		case ok[0] && ok[1]:
			err = health.Compare(figs[0], figs[1], health.DefaultTolerance)
		case ok[0] || ok[1]:
			i := 0
			if ok[1] {
				i = 1
			}
			if err = health.Default.Check(figs[i]); err != nil {
				var r *health.Refusal
				if errors.As(err, &r) {
					r.Side = [2]string{"base", "new"}[i]
				}
			}
		}
		if err == nil {
			continue
		}
		side := names[0]
		var r *health.Refusal
		if errors.As(err, &r) {
			if r.Side == "new" {
				side = names[1]
			}
			r.Side = "" // named in full below
		}
		if opts.AllowBusy {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s %s: %v; compared anyway (-allow-busy): its figures may be the machine's", side, bench, err))
			continue
		}
		return fmt.Errorf("%w: %s %s: %w; not compared (re-record on a quiet machine, or -allow-busy to compare anyway)", recording.ErrUnusable, side, bench, err)
	}
	for i := range without {
		if without[i] && !without[1-i] {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s was recorded without the client's health figures (client-late-p99-ms, …): whether its client kept time is not known", names[i]))
		}
	}
	return nil
}

// benchValues are one benchmark's values by unit.
func benchValues(s *recording.Values, bench string) map[string][]float64 {
	out := map[string][]float64{}
	for _, u := range health.Units {
		if v, ok := s.Vals[recording.Key{Bench: bench, Unit: u.Name}]; ok {
			out[u.Name] = v
		}
	}
	return out
}
