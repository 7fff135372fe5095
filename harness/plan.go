package harness

import (
	"encoding/json"
	"os"
	"sync"
	"testing"

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
	err  error
}

func newPlanFile(path string) *planFile { return &planFile{path: path} }

// bench records that sc's benchmark would run, after the definitions the
// first time, and skips it.
func (p *planFile) bench(b *testing.B, sc Scenario) {
	b.Helper()
	p.once.Do(func() { p.write(session.PlanEntry{Defined: definitions()}) })
	p.write(session.PlanEntry{Bench: sc.Name})
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
	if p.err != nil {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		p.err = err
		return
	}
	f, err := os.OpenFile(p.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.err = err
		return
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	p.err = err
}
