package verdict

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// Against is the configuration recorded files are judged against: file
// when a flag names one (-config FILE), else the one the runs were
// measured under, as their samples files recorded it (config.Record),
// else — files from before llmsla recorded it, or written by hand — the
// shell's (LoadWithoutKeys for a verdict or a report, SLAFile for the
// gate). A recorded SLA file that is gone, or changed since the run (its
// digest), is an error naming it and -config: its objectives and prices
// are no longer the run's. A run measured under the environment or the
// built-in simulator is judged against the presets. Runs recorded under
// different configurations are an error. paths are samples files,
// directories of them, or results files (X.txt: the samples beside it,
// else its own lines).
//
// note, when not "", says that the SLA file of the shell (the one
// config.Load would read) is not the one judged against.
func Against(file string, shell func() (*config.Config, error), paths ...string) (cfg *config.Config, note string, err error) {
	if file != "" {
		cfg, err = config.LoadFile(file)
		return cfg, "", err
	}
	rec, ok, err := recordedConfig(paths)
	switch {
	case err != nil:
		return nil, "", err
	case ok && rec.keys[config.KeyFile] != "":
		return recordedFile(rec.paths, rec.keys[config.KeyDigest])
	case !ok || rec.keys[config.KeySource] == "":
		cfg, err = shell()
		return cfg, "", err
	}
	source := rec.keys[config.KeySource]
	// The presets: those of the shell's environment (its secrets with
	// them), unless the shell has an SLA file, which the run did not read.
	if cfg, err = shell(); err == nil {
		if f, _ := cfg.File(); f == "" {
			cfg.Source = source
			return cfg, "", nil
		}
		note = fmt.Sprintf("judged against the presets, as the run was measured without an SLA file; %s is not read (-config %s judges against it)", cfg.Source, cfg.Source)
	}
	return &config.Config{Source: source + " (as the run recorded: the presets)", Scenarios: config.Presets()}, note, nil
}

// SLAFile is the configuration of the shell that the gate reads: the SLA
// file config.Load would read ($LLMSLA_CONFIG, else sla.yaml at the
// module root), else the presets. It reads no key and selects no
// endpoint: the gate sends nothing, and an API key set only in CI's
// benchmark step, or an LLMSLA_ENDPOINTS selection, must not make it fail.
func SLAFile() (*config.Config, error) {
	if path := config.Path(); path != "" {
		return config.LoadFile(path)
	}
	return &config.Config{Source: "the presets", Scenarios: config.Presets()}, nil
}

// recordedFile loads the SLA file a run recorded, as it was then: the
// first of the paths it was recorded under that is there.
func recordedFile(paths []string, digest string) (*config.Config, string, error) {
	path, resolved := "", ""
	var missing error
	for _, p := range paths {
		r := p
		if root, err := config.ModuleRoot(); err == nil && !filepath.IsAbs(p) {
			r = filepath.Join(root, p)
		}
		if ext := filepath.Ext(r); ext != ".yaml" && ext != ".yml" {
			return nil, "", fmt.Errorf("the run records %s as its SLA file, which is no .yaml file: judge it against one with -config FILE", p)
		}
		if _, err := os.Stat(r); err != nil {
			missing = errors.Join(missing, err)
		} else if resolved == "" {
			path, resolved = p, r
		}
	}
	if resolved == "" {
		return nil, "", fmt.Errorf("the run was measured under %s, which cannot be read (%v): judge it against another SLA file with -config FILE", strings.Join(paths, " or "), missing)
	}
	cfg, err := config.LoadFile(resolved)
	if err != nil {
		return nil, "", err
	}
	if _, now := cfg.File(); now != digest {
		return nil, "", fmt.Errorf("%s changed since the run was measured under it (%s then, %s now): its objectives and prices may not be the run's; judge against the file as it is now with -config %s",
			path, digest, now, resolved)
	}
	note := ""
	if shell := config.Path(); shell != "" && !sameFile(shell, resolved) {
		note = fmt.Sprintf("judged against %s, the SLA file the run was measured under; %s is not read (-config %s judges against it)", path, shell, shell)
	}
	return cfg, note, nil
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// runConfig is a configuration runs recorded: its keys (config.Key*), the
// paths its file was recorded under (shards on several machines may
// name one file's copies differently), and the first file that says so.
type runConfig struct {
	keys  sample.Provenance
	paths []string
	where string
}

// same reports whether c is the configuration r is: the same file's
// content (its digest), or the same source.
func (r runConfig) same(c sample.Provenance) bool {
	if d := c[config.KeyDigest]; d != "" {
		return r.keys[config.KeyDigest] == d
	}
	return maps.Equal(r.keys, c)
}

// recordedConfig is the configuration the runs of paths recorded (the
// config.Key* of their provenance): ok false when none recorded one, an
// error when they recorded different ones.
func recordedConfig(paths []string) (rec runConfig, ok bool, err error) {
	var found []runConfig
	for _, p := range paths {
		recs := records(p)
		for _, file := range slices.Sorted(maps.Keys(recs)) {
			c := sample.Provenance{}
			for _, k := range []string{config.KeyFile, config.KeyDigest, config.KeySource} {
				if v := recs[file][k]; v != "" {
					c[k] = v
				}
			}
			i := slices.IndexFunc(found, func(r runConfig) bool { return r.same(c) })
			switch {
			case len(c) == 0:
			case i < 0:
				found = append(found, runConfig{keys: c, paths: []string{c[config.KeyFile]}, where: file})
			case !slices.Contains(found[i].paths, c[config.KeyFile]):
				found[i].paths = append(found[i].paths, c[config.KeyFile])
			}
		}
	}
	if len(found) > 1 {
		var runs []string
		for _, r := range found {
			runs = append(runs, fmt.Sprintf("%s: %s", r.where, strings.ReplaceAll(strings.TrimSpace(r.keys.Lines()), "\n", ", ")))
		}
		return rec, false, fmt.Errorf("the runs were measured under different configurations (%s): judge them against one with -config FILE", strings.Join(runs, "; "))
	}
	if len(found) == 0 {
		return rec, false, nil
	}
	return found[0], true, nil
}

// records are the provenance records of the run p stands for, by file: a
// samples file's, a directory's samples files', a results file's (the
// samples beside it, else its own configuration lines). A file that
// cannot be read, or is no regular file, has none here: reading its
// samples says why.
func records(p string) map[string]sample.Provenance {
	out := map[string]sample.Provenance{}
	if st, err := os.Stat(p); err == nil && !st.IsDir() && strings.HasSuffix(p, ".txt") {
		if s := recording.SamplesBeside(p); exists(s) {
			p = s
		} else if h := recording.ReadHeader(p); h != nil {
			out[p] = h
			return out
		}
	}
	files, err := sample.Files([]string{p})
	if err != nil {
		return nil
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			continue // a pipe is read once, by the samples' reading
		}
		if prov, err := sample.ReadProvenance([]string{f}); err == nil && prov != nil {
			out[f] = prov
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
