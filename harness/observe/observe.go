// Package observe is how a session tells the concerns that follow a run
// what happens in it, so that the session knows none of them: the
// samples file, the progress events, the budget and abort guard, the
// server's readings, the judge, the client's health, an exporter — each
// an [Observer] in its own package, registered once.
//
// A session sends levels: one scenario on one endpoint at one load
// (a cell), a go test probe or a measured run of it. For each it makes a
// [Level] and calls, in order: LevelStart before the first request;
// Measuring once the cold request and warm-up are done and the measured
// requests start; Sample as each request ends (concurrently, warm-up
// included); LevelEnd after the last, with every sample in order. Close
// ends the session. An observer embeds [Nop] and implements what it needs.
//
// An observer that changes a level's measured samples after they are all
// in — the judge folds its judgments into their quality — is an
// [Amender]: the session marks the level Held, so that observers which
// record samples keep its measured ones until LevelEnd, and calls the
// amenders' LevelEnd before everyone else's. k6 fans its samples out to
// outputs the same way (output.Output): the engine knows no output.
package observe

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// Level is one level as the session sends it: what every observer may
// need of it. Observers read it and call Stop and Decided; only the
// session writes it.
type Level struct {
	Scenario string
	// Endpoint is the endpoint's name; an observer that needs more of it
	// (its URL, its kind) is given the endpoints when it is made.
	Endpoint string
	// Arms are the two endpoints of an interleaved A/B level (Endpoint is
	// the base's), whose samples each carry their endpoint's name; nil
	// for a level of one endpoint.
	Arms  []string
	Label sample.Level // concurrency=5, rate=2, search=capacity/rate=4, …
	Shard string       // "1/3" for a shard's share, "" alone
	// Probe marks go test's probe of a benchmark: one warm-up request,
	// no measured one.
	Probe bool
	// Sourced marks a level whose load brings its own requests (a
	// trace's rows): no fixture case, no quality check.
	Sourced bool
	// QualityOff: the scenario's answers are not checked (quality: off).
	QualityOff bool
	// Total is the requests the level sends, warm-up and cold request
	// included, at most (an agent loop's steps at their most); 0 when it
	// sends until Until.
	Total int
	Until time.Duration
	// Held is set by the session when an Amender amends the level: its
	// measured samples are final only at LevelEnd.
	Held bool
	// Run is the id the level's measured samples carry, set before
	// Measuring ("" for a probe).
	Run string
	// Settle waits until the endpoint's server has finished with the
	// requests the client has read (a simulator's handlers return a moment
	// after the client read the end); nil when there is nothing to wait for.
	Settle func()
	// Decided is set by the session on a level that may stop before its
	// count once its objectives are decided (stop: decided): the observer
	// that decides them calls it, and the level sends no more measured
	// requests. nil: the level sends its count.
	Decided func()
	// Floor is the measured requests such a level sends before it may
	// stop: every fixture case asked once (its warm-up is done before).
	Floor int
	// Series is set on such a level when it is one of a level's runs
	// that decide together (a benchmark's -count repetitions): the
	// observer that decides keeps one tally over all of the series' runs,
	// and calls Decided once they, pooled, are decided. nil: the level
	// decides on its own requests.
	Series *Series
	Rep    int // which run of the series this is, from 1
	// Stop stops the session: nothing more is sent, what is in flight is
	// cancelled, and every later send returns err. The first reason wins.
	Stop func(err error)
}

// Series is what a level's runs that decide together share: its identity,
// and how many runs it may have.
type Series struct{ Runs int }

// Name is the level as people read it: "chat endpoint=prod concurrency=5".
func (lv *Level) Name() string {
	return strings.TrimSpace(lv.Scenario + " endpoint=" + lv.Endpoint + " " + strings.ReplaceAll(string(lv.Label), "/", " "))
}

// Observer follows a session's levels. Sample is called concurrently;
// the others one at a time for a level, though levels of a process may
// overlap (go test runs one at a time; a command may not).
type Observer interface {
	LevelStart(ctx context.Context, lv *Level)
	Measuring(lv *Level)
	Sample(lv *Level, s *sample.Sample)
	LevelEnd(ctx context.Context, lv *Level, samples []sample.Sample)
	Close() error
}

// Amender is an observer that changes a level's measured samples in its
// LevelEnd (see the package doc). Amends says whether it will for lv.
type Amender interface {
	Observer
	Amends(lv *Level) bool
}

// Nop is an observer that does nothing: embed it and implement what the
// observer needs.
type Nop struct{}

func (Nop) LevelStart(context.Context, *Level)                {}
func (Nop) Measuring(*Level)                                  {}
func (Nop) Sample(*Level, *sample.Sample)                     {}
func (Nop) LevelEnd(context.Context, *Level, []sample.Sample) {}
func (Nop) Close() error                                      { return nil }

// Set is the observers of a session, in the order registered: it fans
// each event out to all of them, amenders first at a level's end.
type Set struct {
	mu  sync.Mutex
	all []Observer
}

// Add registers o.
func (s *Set) Add(o Observer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, o)
}

func (s *Set) list() []Observer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all
}

// LevelStart marks lv Held when an amender amends it, then tells everyone.
func (s *Set) LevelStart(ctx context.Context, lv *Level) {
	all := s.list()
	for _, o := range all {
		if a, ok := o.(Amender); ok && a.Amends(lv) {
			lv.Held = true
		}
	}
	for _, o := range all {
		o.LevelStart(ctx, lv)
	}
}

// Measuring tells everyone that lv's measured requests start.
func (s *Set) Measuring(lv *Level) {
	for _, o := range s.list() {
		o.Measuring(lv)
	}
}

// Sample tells everyone that one of lv's requests ended.
func (s *Set) Sample(lv *Level, smp *sample.Sample) {
	for _, o := range s.list() {
		o.Sample(lv, smp)
	}
}

// LevelEnd tells the amenders that lv ended, then everyone else.
func (s *Set) LevelEnd(ctx context.Context, lv *Level, samples []sample.Sample) {
	all := s.list()
	for _, o := range all {
		if _, ok := o.(Amender); ok {
			o.LevelEnd(ctx, lv, samples)
		}
	}
	for _, o := range all {
		if _, ok := o.(Amender); !ok {
			o.LevelEnd(ctx, lv, samples)
		}
	}
}

// Close closes every observer, the last registered first, and joins
// their errors.
func (s *Set) Close() error {
	all := s.list()
	var errs []error
	for i := len(all) - 1; i >= 0; i-- {
		errs = append(errs, all[i].Close())
	}
	return errors.Join(errs...)
}
