package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/guard"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/session"
)

// runFlags are bench's flags that say how this process runs among others
// and within which budget: session.Run, read from the flags or, where a
// flag is not given, from the environment a scheduler sets ($LLMSLA_SHARD,
// a Kubernetes Indexed Job's $JOB_COMPLETION_INDEX with $LLMSLA_SHARDS,
// $LLMSLA_START_AT, $LLMSLA_LEVEL_EVERY). An error names what was given:
// the flag, or the variable.
type runFlags struct {
	shard, startAt, levelEvery string
	maxRequests                int
	maxDuration                time.Duration
	keepGoing, latencyOnly     bool
	rejudge                    bool
}

// Environment variables a scheduler sets for a shard of a run.
const (
	envShard      = "LLMSLA_SHARD"
	envShards     = "LLMSLA_SHARDS"
	envStartAt    = "LLMSLA_START_AT"
	envLevelEvery = "LLMSLA_LEVEL_EVERY"
)

// maxStartWait bounds how far ahead -start-at may be: a typo of a year
// must not hold a CI job until it times out.
const maxStartWait = 24 * time.Hour

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "`I/N`: send this machine's share of a run sent by N (also $LLMSLA_SHARD, or $JOB_COMPLETION_INDEX with $LLMSLA_SHARDS)")
	fs.StringVar(&f.startAt, "start-at", "", "wall-clock `time` (RFC 3339) at which the shards start measuring together, at most a day ahead (also $LLMSLA_START_AT)")
	fs.StringVar(&f.levelEvery, "level-every", "", "`duration` of each measured run's slot after -start-at: the k-th run starts at start + (k+1)·duration on every shard, so that shards stay together through levels and -count repetitions (also $LLMSLA_LEVEL_EVERY)")
	fs.IntVar(&f.maxRequests, "max-requests", 0, "stop the run after this many requests, and refuse a plan that sends more (0: the SLA file's budget, else none)")
	fs.DurationVar(&f.maxDuration, "max-duration", 0, "stop the run after this long, and refuse a plan expected to take longer (0: the SLA file's budget, else none)")
	fs.BoolVar(&f.keepGoing, "keep-going", false, fmt.Sprintf("send the whole run even when an endpoint's last %d requests all failed alike (refused, auth, not found, not the protocol)", guard.DefaultAbortAfter))
	fs.BoolVar(&f.latencyOnly, "latency-only", false, "judge latency and errors only: no quality check (as quality: off on every scenario)")
	fs.BoolVar(&f.rejudge, "rejudge", false, "ask the judge (judge: in the SLA file) about every answer again, reading nothing from its cache")
}

// run resolves the flags and the environment into a session.Run.
func (f *runFlags) run(fs *flag.FlagSet) (session.Run, error) {
	r := session.Run{MaxRequests: f.maxRequests, MaxDuration: f.maxDuration, LatencyOnly: f.latencyOnly, Rejudge: f.rejudge}
	if !f.keepGoing {
		r.AbortAfter = guard.DefaultAbortAfter
	}
	if f.maxRequests < 0 || f.maxDuration < 0 {
		return r, fmt.Errorf("-max-requests %d, -max-duration %s: want ≥ 0", f.maxRequests, f.maxDuration)
	}
	shard, from := given(fs, "shard", f.shard, envShard)
	if idx := os.Getenv("JOB_COMPLETION_INDEX"); shard == "" && idx != "" && os.Getenv(envShards) != "" {
		shard, from = idx+"/"+os.Getenv(envShards), "$JOB_COMPLETION_INDEX/$"+envShards
	}
	if shard != "" {
		sh, err := load.ParseShard(shard)
		if err != nil {
			return r, fmt.Errorf("%s: %w", from, err)
		}
		r.Shard = sh
	}
	if at, from := given(fs, "start-at", f.startAt, envStartAt); at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return r, fmt.Errorf("%s: %q is not an RFC 3339 time (e.g. 2026-12-01T10:00:00Z)", from, at)
		}
		if wait := time.Until(t); wait > maxStartWait {
			return r, fmt.Errorf("%s: %s is %s from now: the shards would wait that long; give a start at most %s ahead", from, at, wait.Round(time.Minute), maxStartWait)
		}
		r.StartAt = t
	}
	if every, from := given(fs, "level-every", f.levelEvery, envLevelEvery); every != "" {
		d, err := time.ParseDuration(every)
		switch {
		case err != nil || d <= 0:
			return r, fmt.Errorf("%s: %q is not a duration > 0 (e.g. 30s)", from, every)
		case r.StartAt.IsZero():
			return r, fmt.Errorf("%s %s: the slots count from the agreed start: set -start-at (or $%s) too", from, every, envStartAt)
		}
		r.LevelEvery = d
	}
	return r, nil
}

// given is a flag's value and its name when it was given, else the
// environment variable's and "$VAR".
func given(fs *flag.FlagSet, name, value, env string) (string, string) {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if set {
		return value, "-" + name
	}
	return os.Getenv(env), "$" + env
}

// prepareSends checks the endpoints of an in-process run (ab, capacity)
// before anything is sent (the preflight: warnings said, failures every
// request would share refused), and starts its samples file with what
// the run measures (its provenance), as bench's is.
func prepareSends(cfg *config.Config, rec recording.Run, scenarios []session.Scenario, sec *secret.Set, doing string, stderr io.Writer) error {
	s, err := session.New(cfg, session.Run{}, session.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	for _, sc := range scenarios {
		if _, err := s.Source(sc); err != nil {
			return err
		}
	}
	warn, err := s.Preflight(ctx)
	if warn != nil {
		fmt.Fprintf(stderr, "llmsla: warning: preflight:\n%v\n%s anyway\n", warn, doing)
	}
	if err != nil {
		return fmt.Errorf("preflight, before any request:\n%w", err)
	}
	return sample.CreateWithProvenance(rec.Samples(), s.Provenance(ctx, scenarios), sec.RedactBytes)
}

// filesOf are the files an in-process run writes: its samples (begun by
// prepareSends), its servers' readings, its judge's requests.
func filesOf(cfg *config.Config, rec recording.Run) session.Options {
	o := session.Options{Samples: rec.Samples(), Server: rec.Server()}
	if cfg.Judge != nil {
		o.JudgeSamples = rec.Judge()
	}
	return o
}
