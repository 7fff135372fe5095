package sample

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadAll reads the samples files of one run or of several to pool: files,
// and directories whose *.samples.jsonl files it reads, in them and below
// (a shard's results/, or one directory holding every shard's; a
// latest.samples.jsonl repeats another file and is skipped). A sample seen
// twice — a file given twice — is an error, not a double count.
//
// A file cut short is an error unless partial is set, when its samples are
// read and the cut is returned in cut.
func ReadAll(paths []string, partial bool) (samples []Sample, cut []error, err error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(f, ".samples.jsonl") && d.Name() != "latest.samples.jsonl" {
				found = append(found, f)
			}
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		if len(found) == 0 {
			return nil, nil, fmt.Errorf("%s: no *.samples.jsonl in the directory", p)
		}
		files = append(files, found...)
	}
	seen := map[string]string{}
	for _, f := range files {
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
		for _, x := range s {
			id := x.Run + "#" + strconv.Itoa(x.Seq)
			if other, dup := seen[id]; dup {
				return nil, nil, fmt.Errorf("%s: request %d of run %s is also in %s: a file given twice would count its requests twice", f, x.Seq, x.Run, other)
			}
			seen[id] = f
		}
		samples = append(samples, s...)
	}
	return samples, cut, nil
}

// CheckShards fails when samples come from a sharded run with shards
// missing: a run of N shards merged from fewer is a quietly smaller run.
func CheckShards(samples []Sample) error {
	have := map[int]map[int]bool{}       // N → indices seen
	from := map[string]map[string]bool{} // shard → processes it came from
	for i := range samples {
		sh := samples[i].Shard
		if sh == "" {
			continue
		}
		if from[sh] == nil {
			from[sh] = map[string]bool{}
		}
		run := samples[i].Run
		from[sh][run[:max(0, strings.LastIndexByte(run, '.'))]] = true
		a, b, _ := strings.Cut(sh, "/")
		idx, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || n < 1 || idx < 0 || idx >= n {
			return fmt.Errorf("sample %d of run %s: shard %q is not a shard: want I/N with 0 ≤ I < N", samples[i].Seq, samples[i].Run, sh)
		}
		if have[n] == nil {
			have[n] = map[int]bool{}
		}
		have[n][idx] = true
	}
	for sh, procs := range from {
		if len(procs) > 1 {
			return fmt.Errorf("shard %s comes from %d processes: the files of two runs are mixed (a shard re-run beside its first run?); give one run's files", sh, len(procs))
		}
	}
	for n, idx := range have {
		var missing, got []string
		for i := range n {
			if idx[i] {
				got = append(got, fmt.Sprintf("%d/%d", i, n))
			} else {
				missing = append(missing, fmt.Sprintf("%d/%d", i, n))
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("shard %s missing: a run of %d shards, samples given for %s only; give every shard's files (or a directory holding them)",
				strings.Join(missing, ", "), n, strings.Join(got, ", "))
		}
	}
	return nil
}
