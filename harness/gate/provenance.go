package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/llmsla/llmsla/harness/provenance"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// compareSources compares the provenance of two recorded runs (their
// configuration lines, and unless opts.RunsOnly what their samples say
// answered) into rep, and returns the sources with their samples read,
// so that they are read once. A side whose samples file records another
// provenance than its configuration lines is refused first
// (provenance.Agree), -runs-only or not: a results file edited alone
// must not pass for the run its samples record.
func compareSources(rep *Report, base, new recording.Source, confs [2]recording.Config, opts Options) (recording.Source, recording.Source, error) {
	srcs := [2]recording.Source{base, new}
	var provs [2]sample.Provenance
	for i := range srcs {
		provs[i] = confs[i].Provenance()
		if err := agree([2]string{"BASE", "NEW"}[i], srcs[i], provs[i]); err != nil {
			return base, new, err
		}
		if opts.RunsOnly {
			continue
		}
		ss, err := srcs[i].ReadSamples()
		if err != nil {
			return base, new, err
		}
		if ss != nil {
			srcs[i] = srcs[i].WithSamples(ss)
			for k, v := range sample.Observe(ss) {
				provs[i][k] = v
			}
		}
	}
	c, err := provenance.Compare(base.Name, new.Name, provs[0], provs[1], opts.AllowChange)
	rep.Provenance = c
	return srcs[0], srcs[1], err
}

// agree holds a side's configuration lines to its samples file's
// provenance record, when it has a samples file on disk.
func agree(side string, src recording.Source, header sample.Provenance) error {
	if src.SamplesPath == "" || src.Samples != nil {
		return nil
	}
	if _, err := os.Stat(src.SamplesPath); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	record, err := sample.ReadProvenance([]string{src.SamplesPath})
	if err != nil {
		return fmt.Errorf("%w: %v", recording.ErrUnusable, err)
	}
	return provenance.Agree(side, src.Name, src.SamplesPath, header, record)
}
