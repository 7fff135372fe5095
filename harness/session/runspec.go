package session

import (
	"fmt"
	"os"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/guard"
	"github.com/llmsla/llmsla/harness/load"
)

// Environment variables a scheduler sets for a shard of a run.
const (
	EnvShard      = "LLMSLA_SHARD"
	EnvShards     = "LLMSLA_SHARDS"
	EnvStartAt    = "LLMSLA_START_AT"
	EnvLevelEvery = "LLMSLA_LEVEL_EVERY"
)

// maxStartWait bounds how far -start-at may be from now, ahead or behind:
// a typo of a year must not hold a CI job until it times out, nor record
// every request as a year late (which no samples file holds).
const maxStartWait = 24 * time.Hour

// Given is a value a process was given and where from: a flag
// ("-shard"), or the variable a scheduler set ("$LLMSLA_SHARD").
type Given struct{ Value, From string }

// RunSpec is what a command was told of how this process runs among
// others and within which budget, before it is checked (ParseRun).
type RunSpec struct {
	Shard, StartAt, LevelEvery Given
	MaxRequests                int
	MaxDuration                time.Duration
	KeepGoing, LatencyOnly     bool
	Rejudge                    bool
	// Until is -until: "decided" (every level stops once its objectives
	// are decided), "count" or "" (each sends its count).
	Until string
	// Against is -against BASE: the candidate is recorded look by look
	// and gated against BASE (Run.Against); CountGiven says -count was
	// given too, which the looks decide instead.
	Against    string
	CountGiven bool
}

// ParseRun checks a RunSpec into a Run: a shard I/N (else a Kubernetes
// Indexed Job's $JOB_COMPLETION_INDEX with $LLMSLA_SHARDS), an RFC 3339
// start within a day of now, slots of a duration > 0 counted from it, a
// budget ≥ 0. An error names what was given: the flag, or the variable.
func ParseRun(g RunSpec) (Run, error) {
	r := Run{MaxRequests: g.MaxRequests, MaxDuration: g.MaxDuration, LatencyOnly: g.LatencyOnly, Rejudge: g.Rejudge}
	if !g.KeepGoing {
		r.AbortAfter = guard.DefaultAbortAfter
	}
	switch g.Until {
	case "decided":
		r.UntilDecided = true
	case "", "count":
	default:
		return r, fmt.Errorf("-until %q: want decided (a level stops once every objective is decided) or count (it sends its count)", g.Until)
	}
	switch r.Against = g.Against; {
	case g.Against != "" && r.UntilDecided:
		return r, fmt.Errorf("-against %s with -until decided: the sequential gate decides when the candidate has run enough, and a level stopped early would change what its runs measure; use one", g.Against)
	case g.Against != "" && g.CountGiven:
		return r, fmt.Errorf("-against %s with -count: the sequential gate's looks decide the runs (at most %d of each benchmark); drop -count", g.Against, gate.DefaultDesign.Ceiling())
	}
	if g.MaxRequests < 0 || g.MaxDuration < 0 {
		return r, fmt.Errorf("-max-requests %d, -max-duration %s: want ≥ 0", g.MaxRequests, g.MaxDuration)
	}
	shard := g.Shard
	if idx := os.Getenv("JOB_COMPLETION_INDEX"); shard.Value == "" && idx != "" && os.Getenv(EnvShards) != "" {
		shard = Given{idx + "/" + os.Getenv(EnvShards), "$JOB_COMPLETION_INDEX/$" + EnvShards}
	}
	if shard.Value != "" {
		sh, err := load.ParseShard(shard.Value)
		if err != nil {
			return r, fmt.Errorf("%s: %w", shard.From, err)
		}
		r.Shard = sh
	}
	if at := g.StartAt; at.Value != "" {
		t, err := time.Parse(time.RFC3339, at.Value)
		if err != nil {
			return r, fmt.Errorf("%s: %q is not an RFC 3339 time (e.g. 2026-12-01T10:00:00Z)", at.From, at.Value)
		}
		switch wait := time.Until(t); {
		case wait > maxStartWait:
			return r, fmt.Errorf("%s: %s is %s from now: the shards would wait that long; give a start at most %s ahead", at.From, at.Value, wait.Round(time.Minute), maxStartWait)
		case -wait > maxStartWait:
			return r, fmt.Errorf("%s: %s was %s ago: every request would be recorded that late; give a start at most %s behind (a shard that starts late says how late)", at.From, at.Value, (-wait).Round(time.Minute), maxStartWait)
		}
		r.StartAt = t
	}
	if every := g.LevelEvery; every.Value != "" {
		d, err := time.ParseDuration(every.Value)
		switch {
		case err != nil || d <= 0:
			return r, fmt.Errorf("%s: %q is not a duration > 0 (e.g. 30s)", every.From, every.Value)
		case r.StartAt.IsZero():
			return r, fmt.Errorf("%s %s: the slots count from the agreed start: set -start-at (or $%s) too", every.From, every.Value, EnvStartAt)
		}
		r.LevelEvery = d
	}
	return r, nil
}

// Within is r with the SLA file's budget where nothing set one.
func (r Run) Within(b config.Budget) Run {
	if r.MaxRequests == 0 {
		r.MaxRequests = b.MaxRequests
	}
	if r.MaxDuration == 0 {
		r.MaxDuration = b.MaxDuration
	}
	return r
}
