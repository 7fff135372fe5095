package sample

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReadAll reads the samples files of one run or of several to pool: files,
// and directories whose *.samples.jsonl files it reads, in them and below
// (a shard's results/, or one directory holding every shard's; a
// latest.samples.jsonl repeats another file and is skipped). Every line is
// checked as Read checks it. A sample seen twice — a file given twice — is
// an error, not a double count.
//
// A file cut short is an error unless partial is set, when its samples are
// read and the cut is returned in cut.
//
// It keeps every sample: its memory grows with the files, about a
// kilobyte a sample (Scanner reads one file in bounded memory).
func ReadAll(paths []string, partial bool) (samples []Sample, cut []error, err error) {
	files, err := samplesFiles(paths)
	if err != nil {
		return nil, nil, err
	}
	type id struct {
		run string
		seq int
	}
	seen := map[id]int{} // the file a request was read from
	var total int64
	for fi, f := range files {
		s, err := Read(f)
		switch {
		case errors.Is(err, ErrCut) && partial:
			cut = append(cut, err)
		case errors.Is(err, ErrCut):
			return nil, nil, fmt.Errorf("%w; judge what finished with -partial", err)
		case err != nil:
			return nil, nil, err
		}
		if len(s) == 0 {
			return nil, nil, fmt.Errorf("%s: no samples recorded", f)
		}
		for i := range s {
			x := &s[i]
			k := id{x.Run, x.Seq}
			if other, dup := seen[k]; dup {
				return nil, nil, fmt.Errorf("%s: request %d of run %s is also in %s: a file given twice would count its requests twice", f, x.Seq, x.Run, files[other])
			}
			seen[k] = fi
			// Checked at each request, the sum never passes maxTotal by
			// more than one request's MaxDuration: no overflow.
			if total += int64(x.Total); total > int64(maxTotal) {
				return nil, nil, fmt.Errorf("%s: %w", strings.Join(files, ", "), errTotal)
			}
		}
		samples = append(samples, s...)
	}
	return samples, cut, nil
}

// Files lists the samples files paths stand for, as ReadAll reads them:
// a file itself, a directory the *.samples.jsonl in and below it but
// latest.* (a copy of another run) and a partial run's
// (X.partial.samples.jsonl: one that did not finish, which llmsla names
// so, harness/recording).
func Files(paths []string) ([]string, error) { return samplesFiles(paths) }

func samplesFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(f, ".samples.jsonl") && d.Name() != "latest.samples.jsonl" && !strings.HasSuffix(f, ".partial.samples.jsonl") {
				found = append(found, f)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *.samples.jsonl in the directory", p)
		}
		files = append(files, found...)
	}
	return files, nil
}

// process is the process a run id belongs to: runs "9cc509ef.1" and
// "9cc509ef.2" are two runs of process 9cc509ef (load.NewRunID).
func process(run string) string {
	if i := strings.LastIndexByte(run, '.'); i >= 0 {
		return run[:i]
	}
	return run
}

// CheckShards fails when samples come from a sharded run with shards
// missing — a run of N shards merged from fewer is a quietly smaller run —
// or mixed: a shard sent by two processes (a re-run beside its first run),
// or one process claiming two shards (one machine is one shard). Its work
// and memory grow with the samples, never with the N a sample claims.
func CheckShards(samples []Sample) error {
	have := map[int]map[int]bool{}       // N → indices seen
	from := map[string]map[string]bool{} // shard → processes it came from
	sent := map[string]map[string]bool{} // process → shards it sent
	for i := range samples {
		s := &samples[i]
		if s.Shard == "" {
			continue
		}
		idx, n, err := ParseShard(s.Shard)
		if err != nil {
			return fmt.Errorf("sample %d of run %s: shard %w", s.Seq, s.Run, err)
		}
		if s.Run != "" {
			p := process(s.Run)
			add(from, s.Shard, p)
			add(sent, p, s.Shard)
		}
		if have[n] == nil {
			have[n] = map[int]bool{}
		}
		have[n][idx] = true
	}
	for _, p := range sortedKeys(sent) {
		if shards := sortedKeys(sent[p]); len(shards) > 1 {
			return fmt.Errorf("process %s sent shards %s: one process sends one shard, so these are not the files of %d machines; give each shard's own files", p, strings.Join(shards, ", "), len(shards))
		}
	}
	for _, sh := range sortedKeys(from) {
		if procs := from[sh]; len(procs) > 1 {
			return fmt.Errorf("shard %s comes from %d processes: the files of two runs are mixed (a shard re-run beside its first run?); give one run's files", sh, len(procs))
		}
	}
	for _, n := range sortedKeys(have) {
		if err := missingShards(n, have[n]); err != nil {
			return err
		}
	}
	return nil
}

// maxListed is how many missing shards an error names.
const maxListed = 10

// missingShards names the shards of a run of n that got lacks: the first
// maxListed of them and how many more, so that a forged N of 2·10⁹ costs
// no more than the shards given.
func missingShards(n int, got map[int]bool) error {
	if len(got) == n {
		return nil
	}
	var missing []string
	for i := 0; i < n && len(missing) < maxListed; i++ {
		if !got[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if more := n - len(got) - len(missing); more > 0 {
		missing = append(missing, fmt.Sprintf("and %d more", more))
	}
	var given []string
	for _, i := range sortedKeys(got) {
		given = append(given, fmt.Sprintf("%d/%d", i, n))
	}
	return fmt.Errorf("shard %s missing: a run of %d shards, samples given for %s only; give every shard's files (or a directory holding them)",
		strings.Join(missing, ", "), n, strings.Join(given, ", "))
}

func add(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ErrNothingMeasured is wrapped by CheckMeasured's error: the samples hold
// no request a verdict judges.
var ErrNothingMeasured = errors.New("nothing was measured")

// CheckMeasured fails when samples hold nothing to judge: every one warm-up
// or a cold first request (which no figure counts), or a capacity-search
// step (which llmsla capacity reads, and no objective judges). An empty
// verdict table is not a pass.
func CheckMeasured(samples []Sample) error {
	var warm, cold, search int
	for i := range samples {
		s := &samples[i]
		switch {
		case s.Warmup:
			warm++
		case s.Cold:
			cold++
		default:
			if _, ok := s.Level.Get("search"); !ok {
				return nil
			}
			search++
		}
	}
	var parts []string
	for _, p := range []struct {
		n         int
		one, more string
	}{{warm, "warm-up request", "warm-up requests"}, {cold, "cold first request", "cold first requests"},
		{search, "capacity-search step", "capacity-search steps"}} {
		switch {
		case p.n == 1:
			parts = append(parts, "1 "+p.one)
		case p.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.more))
		}
	}
	if search > 0 {
		parts[len(parts)-1] += " (llmsla capacity reads them)"
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: no samples", ErrNothingMeasured)
	}
	return fmt.Errorf("%w: the %d samples are %s only, which no objective judges", ErrNothingMeasured, len(samples), strings.Join(parts, " and "))
}
