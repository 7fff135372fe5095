package harness

import (
	"sync"
	"testing"

	"github.com/llmsla/llmsla/harness/internal/jsonl"
	"github.com/llmsla/llmsla/harness/session"
)

// planFile is plan mode (session.Child.Plan): llmsla runs the suites'
// benchmarks once with it before measuring, to learn the scenarios they
// define and the benchmarks -bench matches, and so checks the whole
// configuration and shows the whole run before the first request. Each
// benchmark writes its scenario and is skipped: nothing is sent.
type planFile struct {
	path string
	once sync.Once
	mu   sync.Mutex
	a    *jsonl.Appender
	err  error
}

func newPlanFile(path string) *planFile { return &planFile{path: path} }

// bench records that sc's benchmark would run (its function's name, as
// go test names it: what a record written without go test must name),
// after the definitions the first time, and skips it.
func (p *planFile) bench(b *testing.B, sc Scenario) {
	b.Helper()
	p.once.Do(func() {
		p.a, p.err = jsonl.Create(p.path, "plan file", nil)
		p.write(session.PlanEntry{Defined: definitions()})
	})
	p.write(session.PlanEntry{Bench: sc.Name, Benchmark: b.Name()})
	p.mu.Lock()
	err := p.err
	p.mu.Unlock()
	if err != nil {
		b.Fatalf("plan: %v", err)
	}
	b.SkipNow()
}

func (p *planFile) write(e session.PlanEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = p.a.Append(e)
	}
}
