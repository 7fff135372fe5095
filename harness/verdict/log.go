package verdict

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/trace"
)

// Window is the length of the windows a log is judged in (llmsla verdict
// -log, gate -log): the flag's when it was given (set), else the SLA
// file's logs.window, else an hour. A window of no length, or a negative
// one, is refused naming the flag: it would otherwise quietly mean the
// default.
func Window(cfg *config.Config, flagged time.Duration, set bool) (time.Duration, error) {
	switch {
	case set:
		if err := trace.CheckWindow(flagged); err != nil {
			return 0, fmt.Errorf("-window: %w", err)
		}
		return flagged, nil
	case cfg.Logs.Window > 0:
		return cfg.Logs.Window, nil
	}
	return time.Hour, nil
}

// LogRun reads production's request logs (the fields of cfg's logs:
// block) into a run judged window by window, as a bench's samples are:
// each window a level, each scenario the log names checked against the
// SLA file's.
func LogRun(cfg *config.Config, paths []string, window time.Duration) (*Run, error) {
	samples, err := trace.LogSamples(paths, cfg.Logs.Fields(), window)
	if err == nil {
		err = cfg.CheckScenarios(recorded(samples))
	}
	if err != nil {
		return nil, err
	}
	return &Run{Paths: paths, Samples: samples}, nil
}

// GateLog gates two sides of which one at least is a window of request
// logs (its start, as the verdict table names it: 2026-11-30T10:00Z); the
// other may be a recorded bench (a results file, samples file or
// directory), matched by scenario and by the model its endpoint served.
func GateLog(cfg *config.Config, logs []string, window time.Duration, base, new string, opts gate.Options) (*gate.Report, error) {
	samples, err := trace.LogSamples(logs, cfg.Logs.Fields(), window)
	if err != nil {
		return nil, err
	}
	var sides [2][]sample.Sample
	for i, arg := range []string{base, new} {
		if sides[i], err = logSide(samples, [2]string{"BASE", "NEW"}[i], arg); err != nil {
			return nil, err
		}
	}
	return gate.GateRequests(base, new, sides[0], sides[1], opts)
}

// logSide is one side of a log gate, its level cleared so that the two
// sides meet: a window of the log, or a recorded bench of one level.
func logSide(logged []sample.Sample, side, arg string) ([]sample.Sample, error) {
	if start, err := trace.ParseWindow(arg); err == nil {
		want := trace.WindowLevel(start)
		var out []sample.Sample
		levels := map[sample.Level]bool{}
		for _, s := range logged {
			levels[s.Level] = true
			if s.Level == want {
				s.Level = ""
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w: the log has no request in window %s (windows: %s)", recording.ErrUnusable, arg, windowList(levels))
		}
		return out, nil
	}
	ss, _, err := recordedSide(side, arg)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is neither a window of the log (e.g. 2026-11-30T10:00Z) nor a recorded run: %v", recording.ErrUnusable, arg, err)
	}
	levels := map[string][]sample.Level{}
	out := ss[:0]
	for _, s := range ss {
		if !s.Measured() {
			continue
		}
		key := s.Scenario + " endpoint=" + s.Endpoint
		if !slices.Contains(levels[key], s.Level) {
			levels[key] = append(levels[key], s.Level)
		}
		if len(levels[key]) > 1 {
			return nil, fmt.Errorf("%w: %s holds %s at levels %s and %s: a log's window is one traffic, compare it with a run of one level", recording.ErrUnusable, arg, key, levels[key][0], levels[key][1])
		}
		if s.Model != "" {
			s.Endpoint = s.Model // the log names the model, not the bench's endpoint
		}
		s.Level = ""
		out = append(out, s)
	}
	return out, nil
}

// windowList names the windows of a log, the first few of many.
func windowList(levels map[sample.Level]bool) string {
	var names []string
	for l := range levels {
		v, _ := l.Get("window")
		names = append(names, v)
	}
	slices.Sort(names)
	if len(names) > 6 {
		names = append(names[:3], "…", names[len(names)-1])
	}
	return strings.Join(names, ", ")
}
