package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/llmsla/llmsla/harness/guard"
	"github.com/llmsla/llmsla/harness/session"
)

// runFlags are bench's flags that say how this process runs among others and within which
// budget (session.RunSpec, checked by session.ParseRun), read from the flags or, where a flag
// is not given, from the environment a scheduler sets ($LLMSLA_SHARD, $LLMSLA_START_AT, …).
type runFlags struct {
	session.RunSpec
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.Shard.Value, "shard", "", "`I/N`: send this machine's share of a run sent by N (also $LLMSLA_SHARD, or $JOB_COMPLETION_INDEX with $LLMSLA_SHARDS)")
	fs.StringVar(&f.StartAt.Value, "start-at", "", "wall-clock `time` (RFC 3339) at which the shards start measuring together, within a day of now (also $LLMSLA_START_AT)")
	fs.StringVar(&f.LevelEvery.Value, "level-every", "", "`duration` of each measured run's slot after -start-at: the k-th run starts at start + (k+1)·duration on every shard, so that shards stay together through levels and -count repetitions (also $LLMSLA_LEVEL_EVERY)")
	fs.IntVar(&f.MaxRequests, "max-requests", 0, "stop the run after this many requests, and refuse a plan that sends more (0: the SLA file's budget, else none)")
	fs.DurationVar(&f.MaxDuration, "max-duration", 0, "stop the run after this long, and refuse a plan expected to take longer (0: the SLA file's budget, else none)")
	fs.BoolVar(&f.KeepGoing, "keep-going", false, fmt.Sprintf("send the whole run even when an endpoint's last %d requests all failed alike (refused, auth, not found, not the protocol)", guard.DefaultAbortAfter))
	fs.BoolVar(&f.LatencyOnly, "latency-only", false, "judge latency and errors only: no quality check (as quality: off on every scenario)")
	fs.StringVar(&f.Until, "until", "", "`decided`: every level stops once its objectives are decided, its count the ceiling (as stop: decided; count: send it)")
	fs.StringVar(&f.Against, "against", "", "record the candidate look by look and gate it against the recorded run `BASE` with the sequential gate, stopping at the first look that decides (at most 14 runs; -count is the looks'); exit as llmsla gate's")
	fs.BoolVar(&f.Rejudge, "rejudge", false, "ask the judge (judge: in the SLA file) about every answer again, reading nothing from its cache")
}

// run resolves the flags and the environment into a session.Run.
func (f *runFlags) run(fs *flag.FlagSet) (session.Run, error) {
	g := f.RunSpec
	g.CountGiven = isSet(fs, "count")
	g.Shard = given(fs, "shard", g.Shard.Value, session.EnvShard)
	g.StartAt = given(fs, "start-at", g.StartAt.Value, session.EnvStartAt)
	g.LevelEvery = given(fs, "level-every", g.LevelEvery.Value, session.EnvLevelEvery)
	return session.ParseRun(g)
}

// given is a flag's value and its name when it was given, else the
// environment variable's and "$VAR".
func given(fs *flag.FlagSet, name, value, env string) session.Given {
	if isSet(fs, name) {
		return session.Given{Value: value, From: "-" + name}
	}
	return session.Given{Value: os.Getenv(env), From: "$" + env}
}
