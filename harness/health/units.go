package health

import "math"

// The figures' benchmark units: one row each, the results file's writer
// (the glue's ReportMetric) and reader (FromUnits) both read it. Every
// one is better lower but the wakes.
const (
	UnitLateP50   = "client-late-p50-ms"
	UnitLateP99   = "client-late-p99-ms"
	UnitLateMax   = "client-late-max-ms"
	UnitCPU       = "client-cpu-cores"
	UnitCPUShare  = "client-cpu-share"
	UnitThrottled = "client-throttled-share"
	UnitGCShare   = "client-gc-share"
	UnitLoad      = "client-load-per-cpu"
	UnitWakes     = "client-wakes"         // the probe's wakes in the run: how much the lateness rests on
	UnitSim       = "client-sim-cpu-share" // the in-process simulator's share of the process's CPU, when measured
)

// Unit is one figure's row.
type Unit struct {
	Name   string
	Of     func(Figures) float64
	Set    func(*Figures, float64)
	higher bool // the wakes: more is better; a level's runs' add up
	// pooled: a level's runs' values are their mean weighted by each
	// run's wakes, not the worst (a median, a share of the time): a run of
	// one wake is not the level's median.
	pooled bool
	// Has, when set, says whether the window measured the figure: one it
	// did not is not written, never as 0, and its absence is no cut.
	Has func(Figures) bool
}

// Better is the unit's direction, for its "Unit … better=" line.
func (u Unit) Better() string {
	if u.higher {
		return "higher"
	}
	return "lower"
}

// Units are the figures' rows, in the order they are written.
var Units = []Unit{
	{UnitLateP50, func(f Figures) float64 { return f.LateP50 }, func(f *Figures, v float64) { f.LateP50 = v }, false, true, nil},
	{UnitLateP99, func(f Figures) float64 { return f.LateP99 }, func(f *Figures, v float64) { f.LateP99 = v }, false, false, nil},
	{UnitLateMax, func(f Figures) float64 { return f.LateMax }, func(f *Figures, v float64) { f.LateMax = v }, false, false, nil},
	{UnitCPU, func(f Figures) float64 { return f.CPU }, func(f *Figures, v float64) { f.CPU = v }, false, false, nil},
	// The share is written, not derived on reading: the cores it was of
	// are the writer's.
	{UnitCPUShare, Figures.CPUShare, func(f *Figures, v float64) {
		if f.CPU > 0 && v > 0 {
			f.Cores = f.CPU / v
		}
	}, false, false, nil},
	{UnitThrottled, func(f Figures) float64 { return f.Throttled }, func(f *Figures, v float64) { f.Throttled = v }, false, false, nil},
	{UnitGCShare, func(f Figures) float64 { return f.GCShare }, func(f *Figures, v float64) { f.GCShare = v }, false, true, nil},
	{UnitLoad, func(f Figures) float64 { return f.Load }, func(f *Figures, v float64) { f.Load = v }, false, false, nil},
	{UnitWakes, func(f Figures) float64 { return float64(f.Wakes) }, func(f *Figures, v float64) { f.Wakes = int(v) }, true, false, nil},
	{UnitSim, func(f Figures) float64 { return f.Sim }, func(f *Figures, v float64) { f.Sim, f.SimMeasured = v, true }, false, false,
		func(f Figures) bool { return f.SimMeasured }},
}

// IsUnit reports whether unit is one of the client's figures: the gate
// compares them as provenance, never as the endpoint's.
func IsUnit(unit string) bool {
	for _, u := range Units {
		if u.Name == unit {
			return true
		}
	}
	return false
}

// FromUnits reads figures back from a run's values by unit (each the
// worst of the runs' values, the largest; the wakes summed), and whether the run recorded
// them at all (every unit present). A run that recorded some but not all
// is not health: it was cut.
func FromUnits(values map[string][]float64) (Figures, bool) {
	var f Figures
	for _, u := range Units {
		vs := values[u.Name]
		if len(vs) == 0 && u.Name == UnitWakes {
			// Recorded before the wakes were: judged as a long window
			// (fail closed), never excused as a short one.
			f.Wakes = math.MaxInt32
			continue
		}
		if len(vs) == 0 && u.Has != nil {
			continue
		}
		if len(vs) == 0 {
			return Figures{}, false
		}
		worst, sum := vs[0], 0.0
		for _, v := range vs {
			worst, sum = max(worst, v), sum+v
		}
		if u.higher {
			// The wakes the level's figures rest on: every run's. A level
			// of -count 10 runs of 3 requests each is 10 windows of ~16
			// wakes, each too short to judge alone, and one whose timers
			// stalled for 655 ms (p99 38.9 ms) was judged an SLA violation.
			worst = sum
		}
		if w := values[UnitWakes]; u.pooled && len(w) == len(vs) {
			// A median or a share of the level's time is its runs' weighted
			// by their wakes: one run of a single wake 5.4 ms late (GC 28%
			// of its few ms) made a level of 10 runs client-bound.
			worst = weighted(vs, w, worst)
		}
		u.Set(&f, worst)
	}
	return f, true
}

// weighted is vs's mean weighted by ws, or otherwise when the weights are
// none (a run recorded no wake).
func weighted(vs, ws []float64, otherwise float64) float64 {
	var sum, total float64
	for i, v := range vs {
		sum, total = sum+v*ws[i], total+ws[i]
	}
	if total <= 0 {
		return otherwise
	}
	return sum / total
}
