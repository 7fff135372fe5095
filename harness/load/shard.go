package load

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// Shard is one of N machines (or processes) sending one run together: a
// Kubernetes Indexed Job's pod, a CI matrix's job. Each sends its share of
// every level — k of N·k closed-loop workers, r/N of an open-loop rate with
// a schedule seeded apart (independent Poisson processes add up to one of
// the summed rate) — and asks its own share of the fixture's cases, so that
// the shards' samples pooled are the run a single machine would have made.
type Shard struct{ I, N int }

// ParseShard reads "I/N" (0 ≤ I < N).
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	si, err1 := strconv.Atoi(strings.TrimSpace(i))
	sn, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || sn < 1 || si < 0 || si >= sn {
		return Shard{}, fmt.Errorf("%q is not a shard: want I/N with 0 ≤ I < N, e.g. 0/3", s)
	}
	return Shard{si, sn}, nil
}

// String is "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// On reports whether the run is sharded at all.
func (s Shard) On() bool { return s.N > 1 }

// Share is this shard's part of a whole count: the N parts differ by at
// most one and add up to whole.
func (s Shard) Share(whole int) int {
	if !s.On() {
		return whole
	}
	part := whole / s.N
	if s.I < whole%s.N {
		part++
	}
	return part
}

// Pacer is this shard's part of p (p.Split). Its level stays p's — the
// whole load, concurrency=12 on every shard of three — so the shards'
// samples group as one level when merged. It fails for a load that cannot
// be split: fewer workers than shards.
func (s Shard) Pacer(p Pacer) (Pacer, error) {
	if !s.On() {
		return p, nil
	}
	part, err := p.Split(s)
	if err != nil {
		return nil, err
	}
	return sharded{part, p.Level()}, nil
}

// Source is this shard's share of src: prompt i is src's prompt i·N + I,
// so that the shards ask disjoint cases of a fixture and together every one.
func (s Shard) Source(src Source) Source {
	if !s.On() {
		return src
	}
	return SourceFunc(func(i int) Prompt { return src.Prompt(i*s.N + s.I) })
}

// sharded paces and plans like its part of the load, labelled with the
// whole load's level.
type sharded struct {
	Pacer
	level sample.Level
}

func (s sharded) Level() sample.Level { return s.level }

// Split refuses: a shard's part is not split again, which would label
// each part of a part with the whole's level.
func (s sharded) Split(Shard) (Pacer, error) {
	return nil, fmt.Errorf("%s is already a shard's part of the load", s.level)
}
