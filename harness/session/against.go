package session

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/provenance"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
)

// A bench against a base (llmsla bench -against BASE) records its
// candidate look by look, as the sequential gate's design says
// (gate.DefaultDesign): go test runs the first look's runs of every
// benchmark, the gate judges the recording against the base at that
// look's level, and only a candidate still undecided gets the next look's
// runs, appended to the same recording, up to the design's ceiling. The
// recording is one recorded run, whichever look it stopped at: a header,
// then each look's go test output in turn (its own header block and
// results, which the readers take as runs appended), and one samples file
// that every look's requests are appended to. A look that is interrupted
// leaves what finished, as any bench does.

// Looked is how a bench against a base ended: the gate's outcome at the
// look that decided (nil when no look was judged), the requests the
// recording holds, and the gate's error (Err: the base or the
// recording could not be judged).
type Looked struct {
	Seq       *gate.Sequential
	Design    gate.Design
	Requests  int
	Fixed     int  // the requests of the fixed gate's runs, planned
	FixedUpTo bool // and Fixed a ceiling (agent loops)
	Err       error
}

// checkAgainst checks a bench against base before any request: the base
// is a recorded run the gate reads, with runs of every benchmark.
func checkAgainst(base string) error {
	if _, err := gate.Check(recording.File(base), gate.Options{}); err != nil {
		return fmt.Errorf("-against %s: %w", base, err)
	}
	return nil
}

// planLooks plans each look of the bench's design as the code that sends
// counts it: look k is a go test run of Added(k) runs of each benchmark,
// with its own probes and warm-up, of the rows the bench's plan kept.
func (s *Session) planLooks(b *Bench, n int) error {
	kept := map[string]bool{}
	for _, r := range b.Plan.Rows {
		if r.Cell.Settings.StopDecided {
			// As -until decided is refused (ParseRun): a look's runs cut
			// short would change what the gate compares.
			return fmt.Errorf("-against %s with scenarios.%s.stop: decided: the sequential gate decides when the candidate has run enough, and a level stopped early would change what its runs measure; drop the key for this bench", b.Against, r.Cell.Scenario)
		}
		kept[r.Cell.Scenario+"/"+r.Cell.Endpoint.Name] = true
	}
	for k := range b.Design.Looks {
		p, err := s.Plan(b.Scenarios, b.fixtures, b.Design.Added(k), n)
		if err != nil {
			return err
		}
		p.Rows = slices.DeleteFunc(p.Rows, func(r PlanRow) bool { return !kept[r.Cell.Scenario+"/"+r.Cell.Endpoint.Name] })
		b.Looks = append(b.Looks, p)
	}
	p, err := s.Plan(b.Scenarios, b.fixtures, b.Design.Base, n)
	if err != nil {
		return err
	}
	p.Rows = slices.DeleteFunc(p.Rows, func(r PlanRow) bool { return !kept[r.Cell.Scenario+"/"+r.Cell.Endpoint.Name] })
	b.fixed = p.Totals()
	worst := 0
	for _, l := range b.Looks {
		worst += l.Totals().Requests()
	}
	if m := b.Plan.Run.MaxRequests; m > 0 && worst > m {
		return fmt.Errorf("-against: the sequential plan sends up to %d requests (%d runs of each benchmark, the design's ceiling), over the budget of max_requests %d: lower -n, or the levels, or raise the budget", worst, b.Design.Ceiling(), m)
	}
	return nil
}

// requests is the requests a samples file holds (0: it cannot be read).
func requests(samples string) int {
	ss, _, err := sample.ReadAll([]string{samples}, true)
	if err != nil {
		return 0
	}
	return len(ss)
}

// lookPlan is look k's plan, each row's probed latency the bench's (the
// progress line's weights).
func (b *Bench) lookPlan(k int) *Plan {
	p := b.Looks[k]
	for i := range p.Rows {
		p.Rows[i].Latency = b.Plan.Rows[i].Latency
	}
	return p
}

// WritePlan writes the bench's plan and, if it has one, its sequential
// plan: each look's runs and requests so far, and the expected and
// worst-case requests of the design beside the fixed gate's.
func (b *Bench) WritePlan(w io.Writer) {
	if b.Plan != nil {
		report.WritePlan(w, b.Plan.Report())
	}
	if len(b.Looks) == 0 {
		return
	}
	d := b.Design
	fmt.Fprintf(w, "sequential: against %s, %s of each benchmark (gate.DefaultDesign), stopping at the first look that decides:\n", b.Against, d)
	if b.Plan != nil {
		fmt.Fprintf(w, "  (the plan above is the levels at the ceiling as one run of %d; each look is its own go test run, with its own probes and warm-up)\n", d.Ceiling())
	}
	sent := make([]int, len(b.Looks))
	for k, t := range b.Looks {
		sent[k] = t.Totals().Requests()
		if k > 0 {
			sent[k] += sent[k-1]
		}
		fmt.Fprintf(w, "  look %d: %2d runs, %s so far\n", k+1, d.Looks[k], report.Plural(sent[k], "request", "requests"))
	}
	exp := d.Expected(func(k int) float64 { return float64(sent[k]) })
	fmt.Fprintf(w, "  expected ≈ %.0f requests (%.1f runs) for an unchanged candidate, by the looks unchanged candidates stopped at in the gate's simulations (TestGateSequential, 200 A/A pairs); at most %d (%d runs); the fixed gate's %d runs: %d\n",
		exp, d.Expected(func(k int) float64 { return float64(d.Looks[k]) }), sent[len(sent)-1], d.Ceiling(), d.Base, b.fixed.Requests())
	if b.fixed.UpTo {
		fmt.Fprintln(w, "  (every count up to: agent loops end when their task does)")
	}
}

// Summary says what kept each undecided look going, where the gate
// stopped and what the recording holds: "decided unchanged at look 2 of
// 4: 6 of 14 runs, 2768 requests recorded (the fixed gate's 10 runs: up
// to 4873)".
func (l Looked) Summary() string {
	upTo := ""
	if l.FixedUpTo {
		upTo = "up to "
	}
	return fmt.Sprintf("%s%s, %s recorded (the fixed gate's %d runs: %s%d)", lines(l.Seq.Undecided), l.Seq.Saved(l.Design), report.Plural(l.Requests, "request", "requests"), l.Design.Base, upTo, l.Fixed)
}

// RecordAgainst records the bench against its base look by look
// (above), judging each look with the sequential gate under opts, and
// stops at the first look that decides. It returns the recording, how
// the gate ended, and the run's error as Record does (a look that did
// not finish: no later look is sent, and the gate has not judged it).
//
// A bench with no base is Record's.
func (b *Bench) RecordAgainst(ctx context.Context, cfg *config.Config, run Run, g GoTest, sec *secret.Set, r Recorder, opts gate.Options, stdout, stderr io.Writer) (recording.Run, Looked, error) {
	if b.Against == "" {
		rec, err := b.Record(ctx, cfg, run, g, sec, r, stdout, stderr)
		return rec, Looked{}, err
	}
	// What BASE measured against what this bench measures, before look 1
	// sends a measured request: the gate compares the same (and the
	// samples' answers) after each look.
	if _, err := provenance.Compare(b.Against, "this bench", recording.ReadHeader(b.Against), b.Provenance, opts.AllowChange); err != nil {
		// bench's -allow-change is another flag's (models served within a
		// run): the advice's kinds are llmsla gate's.
		return recording.Run{}, Looked{}, fmt.Errorf("-against %s, before any measured request: %w\n(bench -against takes no -allow-change kinds: record with llmsla bench, then gate with llmsla gate -allow-change)", b.Against, err)
	}
	d := b.Design
	// The gate compares the benchmarks this bench measures (a -bench of
	// some: those), as llmsla gate -filter would.
	var names []string
	for _, sc := range b.Suites.Benched {
		names = append(names, strings.TrimPrefix(b.Suites.Benchmarks[sc], "Benchmark"))
	}
	opts.Filter = ".name:(" + strings.Join(names, " OR ") + ")"
	var rec recording.Run
	var runErr error
	start, budget := time.Now(), run
	look := func(k int) (gate.Look, error) {
		// The budget is the bench's: each look's go test is given what
		// the looks before it left.
		run := budget
		if k > 0 && run.MaxRequests > 0 {
			run.MaxRequests = max(run.MaxRequests-requests(rec.Samples()), 1)
		}
		if k > 0 && run.MaxDuration > 0 {
			run.MaxDuration = max(run.MaxDuration-time.Since(start), time.Millisecond)
		}
		g := g
		g.Count = d.Added(k)
		fmt.Fprintf(stdout, "look %d of %d: %d more runs of each benchmark, %d in all\n", k+1, len(d.Looks), g.Count, d.Looks[k])
		whole := b.Plan
		b.Plan = b.lookPlan(k) // what the progress line counts
		defer func() { b.Plan = whole }()
		if k == 0 {
			rec, runErr = b.Record(ctx, cfg, run, g, sec, r, stdout, stderr)
		} else {
			runErr = b.record(ctx, cfg, run, g, sec, r, rec, nil, stdout, stderr)
		}
		if runErr != nil {
			return gate.Look{}, errLookUnfinished
		}
		return gate.Look{Source: recording.File(rec.Txt()), Fraction: d.Fraction(k)}, nil
	}
	seq, err := gate.GateSequential(recording.File(b.Against), len(d.Looks), look, opts)
	out := Looked{Seq: seq, Design: d, Err: err, Fixed: b.fixed.Requests(), FixedUpTo: b.fixed.UpTo}
	if runErr != nil {
		out.Err = nil
	}
	if rec.Name != "" {
		out.Requests = requests(rec.Samples())
	}
	return rec, out, runErr
}

// lines is each of ss on a line of its own.
func lines(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// errLookUnfinished stops the gate at a look whose run did not finish;
// the run's own error says why.
var errLookUnfinished = fmt.Errorf("the look did not finish")
