package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// LogFields name the fields of a structured request log, one JSON object
// a line. The defaults (DefaultLogFields) are the structlog example of
// llmsla's seed articles, rendered as JSON with an ISO timestamp: its
// endpoint is the application's kind of request (chat, extraction,
// summary, batch), which is llmsla's scenario, and its model the model
// serving it, llmsla's endpoint.
type LogFields struct {
	Timestamp string
	Unit      Unit // of the timestamp: datetime, or s, ms, us, ns since the Unix epoch
	Scenario  string
	Endpoint  string
	// TTFT, TPOT and Total are in milliseconds; a line without Total is
	// ttft + tpot × (output tokens − 1), so that its tpot reads back as
	// logged.
	TTFT, TPOT, Total string
	OutputTokens      string
	PromptTokens      string // optional: a trace made from the log needs it
	// Error, when set on a line to anything but null, false or "", makes
	// the request a failed one.
	Error string
	// Event and EventValue pick the request lines of a log that holds
	// others: a line whose Event field is not EventValue is skipped. An
	// empty Event reads every line.
	Event, EventValue string
}

// reads reports whether name is a field the log is read by.
func (f LogFields) reads(name string) bool {
	for _, n := range []string{f.Timestamp, f.Scenario, f.Endpoint, f.TTFT, f.TPOT, f.Total, f.OutputTokens, f.PromptTokens, f.Error, f.Event} {
		if n != "" && n == name {
			return true
		}
	}
	return false
}

// DefaultLogFields are the seed's structlog field names.
func DefaultLogFields() LogFields {
	return LogFields{Timestamp: "timestamp", Unit: DateTime, Scenario: "endpoint", Endpoint: "model",
		TTFT: "ttft_ms", TPOT: "tpot_ms", Total: "total_ms", OutputTokens: "output_tokens",
		PromptTokens: "prompt_tokens", Error: "error", Event: "event", EventValue: "llm_latency"}
}

// MaxLogRequests bounds the requests one reading of logs holds: a
// verdict keeps every request's sample.
const MaxLogRequests = 1_000_000

// LogRequest is one request line of a log: its sample (latencies, tokens,
// error) and its prompt length when the log has one.
type LogRequest struct {
	Sample sample.Sample
	Prompt int
}

// ReadLog reads every request line of the log files, in order, calling
// fn with each; a line that is not a request the fields can read is an
// error naming the file and line, and so is a log of more than
// MaxLogRequests requests.
func ReadLog(paths []string, f LogFields, fn func(r LogRequest) error) error {
	n := 0
	for _, p := range paths {
		err := readLogFile(p, f, func(r LogRequest) error {
			if n++; n > MaxLogRequests {
				return fmt.Errorf("more than %d requests: judge a shorter span of the log", MaxLogRequests)
			}
			r.Sample.Seq = n // across the files, so that no two requests of a window share one
			return fn(r)
		})
		if err != nil {
			return err
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: no request line (fields %q = %q): the log holds none, or logs.fields does not name its fields", strings.Join(paths, ", "), f.Event, f.EventValue)
	}
	return nil
}

func readLogFile(path string, f LogFields, fn func(LogRequest) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	r := &Reader{name: path, br: bufio.NewReaderSize(file, 64<<10)}
	for {
		line, err := r.readLine()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		req, keep, err := logLine(line, f)
		if err != nil {
			return r.errorf("%v", err)
		}
		if !keep {
			continue
		}
		if err := req.Sample.Check(); err != nil {
			return r.errorf("%v", err)
		}
		if err := fn(req); err != nil {
			return r.errorf("%v", err)
		}
	}
}

// logLine reads one line: the request, or keep false for a line of
// another event.
func logLine(line []byte, f LogFields) (req LogRequest, keep bool, err error) {
	raw := map[string]string{}
	var twice []string
	if err := objectFields(line, func(k string, v []byte) {
		if _, ok := raw[k]; ok {
			twice = append(twice, k)
		}
		raw[k] = string(v)
	}); err != nil {
		return req, false, fmt.Errorf("not a JSON object: %v", err)
	}
	for _, k := range twice {
		if f.reads(k) {
			return req, false, errTwice(k)
		}
	}
	get := func(name string) field {
		v, ok := raw[name]
		return field{name: name, raw: v, present: name != "" && ok && v != "null"}
	}
	if f.Event != "" {
		if ev, _ := get(f.Event).text(); ev != f.EventValue {
			return req, false, nil
		}
	}
	s := &req.Sample
	var errs []error
	at, err := timestamp(get(f.Timestamp), f.Unit)
	errs = append(errs, err)
	s.Start = time.Unix(0, int64(at)).UTC()
	for _, n := range []struct {
		name string
		into *string
	}{{f.Scenario, &s.Scenario}, {f.Endpoint, &s.Endpoint}} {
		v, ok := get(n.name).text()
		if !ok || v == "" {
			errs = append(errs, fmt.Errorf("%s: missing, or not a name", n.name))
		}
		*n.into = v
	}
	s.Model = s.Endpoint
	if failed := get(f.Error); failed.present && failed.raw != "false" && failed.raw != `""` {
		msg, _ := failed.text()
		s.ErrKind, s.Finish, s.Err = sample.KindOther, string(sample.KindOther), msg
	} else {
		errs = append(errs, logTimes(s, get, f))
	}
	if pt := get(f.PromptTokens); pt.present {
		req.Prompt, err = tokens(pt)
		errs = append(errs, err)
	}
	return req, true, errors.Join(errs...)
}

// logTimes reads a successful request's latencies and tokens.
func logTimes(s *sample.Sample, get func(string) field, f LogFields) error {
	var errs []error
	ms := func(name string, need bool) time.Duration {
		fd := get(name)
		if !fd.present && !need {
			return -1
		}
		v, ok := fd.text()
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(x >= 0 && x < float64(sample.MaxDuration/time.Millisecond)) {
			errs = append(errs, fmt.Errorf("%s: missing, or not a time in ms ≥ 0", name))
			return 0
		}
		return time.Duration(math.Round(x * float64(time.Millisecond)))
	}
	s.TTFT = ms(f.TTFT, true)
	n, err := tokens(get(f.OutputTokens))
	errs = append(errs, err)
	s.OutputTokens, s.TokenSource, s.Finish = n, sample.TokensUsage, "stop"
	if total := ms(f.Total, false); total >= 0 {
		s.Total = total
	} else if tpot := ms(f.TPOT, true); n > 1 {
		// In floating point first: tpot × tokens may overflow a Duration
		// and wrap into a short request.
		if float64(s.TTFT)+float64(tpot)*float64(n-1) > float64(sample.MaxDuration) {
			errs = append(errs, fmt.Errorf("total: %s + %s × (%s − 1) is longer than %v: not one request", f.TTFT, f.TPOT, f.OutputTokens, sample.MaxDuration))
		} else {
			s.Total = s.TTFT + tpot*time.Duration(n-1)
		}
	} else {
		s.Total = s.TTFT
	}
	s.TTFA, s.Chunks = s.TTFT, n
	return errors.Join(errs...)
}

// MinWindow is the shortest time window a log is judged in.
const MinWindow = time.Minute

// MaxWindow is the longest time window a log is judged in.
const MaxWindow = 7 * 24 * time.Hour

// CheckWindow reports a window a log cannot be judged in, naming what is
// allowed: from MinWindow to MaxWindow, dividing a day or a whole number
// of days, so that the windows of every day start at the same times. A
// zero or negative window is refused, never read as a default: the
// caller that has a default applies it before, where it knows the window
// was not given.
func CheckWindow(window time.Duration) error {
	if window < MinWindow || window > MaxWindow || (24*time.Hour)%window != 0 && window%(24*time.Hour) != 0 {
		return fmt.Errorf("%v is not a window: want from %v to a week, dividing a day or a whole number of days (1h, 15m, 24h)", window, MinWindow)
	}
	return nil
}

// WindowLevel is the level label of the window starting at start:
// window=2026-11-30T10:00Z.
func WindowLevel(start time.Time) sample.Level {
	return sample.NewLevel("window", start.UTC().Format(windowLayout))
}

const windowLayout = "2006-01-02T15:04Z"

// ParseWindow reads a window's start as WindowLevel writes it (or in
// RFC 3339).
func ParseWindow(s string) (time.Time, error) {
	for _, layout := range []string{windowLayout, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a window's start (e.g. 2026-11-30T10:00Z)", s)
}

// WindowRuns is how many runs a window's requests make, one per equal
// part of it: the gate measures the drift between runs, which in
// production is the traffic's own from one quarter hour to the next.
const WindowRuns = 4

// LogSamples reads request logs into samples, each labelled with the
// window of length window (from midnight UTC) its timestamp falls in, in
// WindowRuns runs a window: what objective.Evaluate judges window by
// window, and the gate compares. A
// log records no quality check: every sample says its answer was not
// judged (QualityOff).
func LogSamples(paths []string, f LogFields, window time.Duration) ([]sample.Sample, error) {
	if err := CheckWindow(window); err != nil {
		return nil, err
	}
	var out []sample.Sample
	err := ReadLog(paths, f, func(r LogRequest) error {
		s := r.Sample
		start := s.Start.Truncate(window)
		s.Level = WindowLevel(start)
		s.Offset, s.QualityOff = s.Start.Sub(start), true
		s.Run = "log." + start.Format(windowLayout) + "." + strconv.Itoa(int(s.Offset*WindowRuns/window))
		out = append(out, s)
		return nil
	})
	return out, err
}
