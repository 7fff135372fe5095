package session

import (
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
)

// schedule is where a session is in its run: which scenario × endpoint
// and which levels have had their cold request and warm-up, where each
// scenario is in its fixture, how many measured runs have had a start
// slot (Run.LevelEvery), how many synthetic-prompt runs were seeded. The
// plan walks a copy of it with the same code the session sends with
// (take), so that what -dry-run says is what the run sends.
type schedule struct {
	run Run

	mu        sync.Mutex
	started   map[string]bool // scenario/endpoint and scenario/endpoint/level → cold request and warm-up sent; endpoint → its tokens calibrated
	next      map[string]int  // scenario/endpoint → the fixture position the next run starts at
	slots     int             // measured runs given a slot so far (Run.LevelEvery)
	synthRuns uint64          // synthetic-prompt runs so far, to seed each apart

	startOnce sync.Once
	startLag  time.Duration
}

func newSchedule(run Run) *schedule {
	return &schedule{run: run, started: map[string]bool{}, next: map[string]int{}}
}

// clone is a copy of the schedule's state, for a plan to walk.
func (sc *schedule) clone() *schedule {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return &schedule{run: sc.run, started: maps.Clone(sc.started), next: maps.Clone(sc.next), slots: sc.slots, synthRuns: sc.synthRuns}
}

// sends is what one send of a cell is: its requests and where they come
// from. The session sends it; a plan counts it.
type sends struct {
	pacer    load.Pacer
	n        int  // measured requests (a shard's share), at most (a soak's time decides)
	warm     int  // warm-up requests
	cold     bool // the run's cold request is still to send
	steps    int  // the most requests a measured prompt sends (an agent loop's max_steps; 1)
	src      load.Source
	cases    int  // the fixture's cases (0: a synthetic or sourced level)
	sourced  bool // the level brings its own requests (a trace's rows)
	own      load.Sourced
	judged   bool
	duration time.Duration // a soak's: measured requests until then
	// calibrate: the endpoint's count of words is to be measured before
	// this send (its first of synthetic or trace prompts):
	// calibrationRequests more, not recorded.
	calibrate bool
	sized     load.Calibrated // the prompts sized in tokens (a synthetic source, a trace's rows), nil for a fixture's
}

// calibrationRequests is what measuring an endpoint's count of words
// sends (Session.tokens).
var calibrationRequests = len(load.CalibrationPrompts())

// total is every request the send makes, at most.
func (s sends) total() int {
	t := s.n*s.steps + s.warm
	if s.cold {
		t++
	}
	if s.calibrate {
		t += calibrationRequests
	}
	return t
}

// take is the send of n requests of cell c (a go test probe when probe):
// its pacer (a shard's share of the level's load), its warm-up (the run's
// first level warms up the endpoint; a closed-loop level's first run
// opens as many connections as its measured requests will use at once —
// its workers, at most its runs' measured requests (Run.PerRun) — so
// that no measured request pays for a connect and TLS handshake; under cache: warm every
// run sends one, which puts the shared prefix in the server's cache),
// whether the run's cold request is still to send, and its source: the
// fixture from the position the scenario is at (which a measured request
// moves on), a synthetic prompt of the level's length, or the level's
// own rows. It moves the schedule on as the send will.
func (sc *schedule) take(c Cell, n int, probe bool) (sends, error) {
	shard := sc.run.Shard
	pacer, err := shard.Pacer(c.Level.Pacer)
	if err != nil {
		return sends{}, fmt.Errorf("shard %s: scenarios.%s (%s): %w", shard, c.Scenario, c.Level.Label(), err)
	}
	s := sends{pacer: pacer, n: n, steps: 1}
	s.own, s.sourced = c.Level.Pacer.(load.Sourced)
	key := c.Scenario + "/" + c.Endpoint.Name
	fix := c.Fixture
	sc.mu.Lock()
	s.cold = !sc.started[key]
	sc.started[key] = true
	levelKey := key + "/" + string(c.Level.Label())
	filled := sc.started[levelKey]
	sc.started[levelKey] = true
	at := sc.next[key]
	synthetic := c.Level.PromptTokens > 0
	if synthetic || s.sourced {
		s.calibrate = !sc.started[c.Endpoint.Name]
		sc.started[c.Endpoint.Name] = true
	}
	if !probe && !synthetic && !s.sourced {
		moved := n
		if load.PacesSessions(c.Level.Pacer) {
			moved = fix.Conversations(at, n, shard)
			if err := holdsSessions(c, fix, pacer, at, shard.Share(n)); err != nil {
				sc.mu.Unlock()
				return sends{}, err
			}
		}
		sc.next[key] = (at + moved) % fix.Len()
	}
	sc.mu.Unlock()
	if s.cold {
		s.warm = c.Settings.Warmup
	}
	if !filled {
		// The connections the level's measured requests use at once, and
		// no more: concurrency 100000 over 2 requests opens 2.
		need := n
		if probe {
			if need = sc.run.PerRun; need == 0 {
				need = c.Settings.Requests(c.Level)
			}
		}
		s.warm = max(s.warm, min(pacer.Workers(), max(need, 1)))
	}
	switch {
	case s.sourced:
		s.src = s.own.Source()
		s.sized, _ = s.own.(load.Calibrated)
		if _, _, held := c.Endpoint.Kind.FixedLength(); held {
			s.src = load.AsAsked(s.src) // each row's output length, as production's answer had
		}
	case synthetic:
		syn := load.NewSynthetic(c.Level.PromptTokens, sc.synthSeed(c.Settings.Seed))
		s.src, s.sized = syn, syn
	default:
		s.src, s.cases = shard.Source(load.Shift(fix, at)), fix.Len()
		if !probe {
			s.steps = fix.Steps() // an agent loop's steps, at its most
		}
	}
	if !s.sourced { // a trace's rows share the prefixes production's did
		if c.Settings.Cache.Or() == sample.CacheWarm {
			s.warm = max(s.warm, 1)
		}
		s.src = load.Cache(s.src, c.Settings.Cache.Or(), c.Settings.WarmPrefix())
		s.src = load.MaxTokens(s.src, c.Settings.MaxTokens)
		s.src = c.Level.Source(s.src) // a batch's inputs, each request
		if f := c.Settings.FixedTokens; f > 0 {
			s.src = load.FixedTokens(s.src, f)
		}
	}
	if !probe {
		s.n = shard.Share(n) // every shard sends go test's one probe request
		s.duration = c.Settings.Duration
	}
	return s, nil
}

// synthSeed seeds a run's synthetic prompts: the scenario's seed, apart
// per shard and per run so that no run repeats another's prompts (a
// server's prefix cache would skip their prefill), or a fresh one.
func (sc *schedule) synthSeed(seed uint64) uint64 {
	if seed == 0 {
		return 0
	}
	sc.mu.Lock()
	sc.synthRuns++
	k := sc.synthRuns
	sc.mu.Unlock()
	return seed*1_000_003 + uint64(sc.run.Shard.I)*10_007 + k
}

// waitStart holds the first request until the start the shards agreed on
// (Run.StartAt), so that their measured windows overlap, and returns how
// late this process got there (0 when it was early, or there is no
// agreement). With a slot per run (Run.LevelEvery), it holds the k-th
// measured run until StartAt + (k+1)·LevelEvery, and returns how late that
// run is: every shard runs the same runs in the same order, so the k-th
// slot of each is the same level, and a run that overran its slot makes
// the next one late, not every one after it. go test's probe runs wait for
// the start only: the first slot holds the first probe, the cold request
// and the warm-up, and each slot the probe of the run after it. Durations
// are measured on each machine's monotonic clock; only this alignment
// uses the wall clock.
func (sc *schedule) waitStart(probe bool) time.Duration {
	r := sc.run
	sc.startOnce.Do(func() {
		if r.StartAt.IsZero() {
			return
		}
		if d := time.Until(r.StartAt); d > 0 {
			time.Sleep(d)
			return
		}
		sc.startLag = time.Since(r.StartAt)
	})
	if r.LevelEvery == 0 || probe {
		return sc.startLag
	}
	sc.mu.Lock()
	k := sc.slots
	sc.slots++
	sc.mu.Unlock()
	slot := r.StartAt.Add(time.Duration(k+1) * r.LevelEvery)
	if d := time.Until(slot); d > 0 {
		time.Sleep(d)
		return 0
	}
	return time.Since(slot)
}

// holdsSessions refuses a level of conversations whose runs of n measured
// requests (this process's share) cannot keep its sessions in flight:
// sessions: [4] over runs of 4 requests plays one conversation, and its
// figures would be one user's, labelled four. It names the requests a run
// needs from where the fixture is.
func holdsSessions(c Cell, fix *load.Fixture, pacer load.Pacer, at, n int) error {
	w := pacer.Workers()
	played := fix.Conversations(at, n, load.Shard{})
	if w <= 1 || played >= w {
		return nil
	}
	need := n
	for fix.Conversations(at, need, load.Shard{}) < w && need < n+100_000 {
		need++
	}
	return fmt.Errorf("scenarios.%s (%s): runs of %d measured requests play %d of the fixture's conversations, fewer than the %d the level keeps in flight, so its figures would not be of that load: give each run at least %d requests (-n, or samples:), or fewer sessions",
		c.Scenario, c.Level.Label(), n, played, w, need)
}
