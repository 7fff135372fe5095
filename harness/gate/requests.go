package gate

import (
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// reqKey is one scenario × endpoint × load level of a side's requests,
// what one benchmark measured.
type reqKey struct {
	scenario, endpoint string
	level              sample.Level
}

// cell holds a cell's measured requests by run, runs in first-seen order.
type cell struct {
	runs  []string
	byRun map[string][]*sample.Sample
}

// requests is one side's measured requests (cold and warm-up ones are not
// measurements), by cell.
type requests struct {
	name  string
	cells map[reqKey]*cell
	order []reqKey
}

// groupRequests groups the measured samples of ss by cell and run; name
// labels them in messages. The samples were checked
// (recording.CheckSamples).
func groupRequests(name string, ss []sample.Sample) *requests {
	rq := &requests{name: name, cells: map[reqKey]*cell{}}
	for i := range ss {
		s := &ss[i]
		if !s.Measured() {
			continue
		}
		k := reqKey{s.Scenario, s.Endpoint, s.Level}
		c := rq.cells[k]
		if c == nil {
			c = &cell{byRun: map[string][]*sample.Sample{}}
			rq.cells[k] = c
			rq.order = append(rq.order, k)
		}
		if _, ok := c.byRun[s.Run]; !ok {
			c.runs = append(c.runs, s.Run)
		}
		c.byRun[s.Run] = append(c.byRun[s.Run], s)
	}
	return rq
}

// benchKey is how a benchmark name and a cell meet: the name as the
// harness builds it (Chat/endpoint=prod/concurrency=5), lower-cased and
// without its -N GOMAXPROCS suffix.
func benchKey(name string) string { return strings.ToLower(name) }

func (k reqKey) benchKey() string {
	s := k.scenario + "/endpoint=" + sample.NameValue(k.endpoint)
	if k.level != "" {
		s += "/" + string(k.level)
	}
	return strings.ToLower(s)
}
