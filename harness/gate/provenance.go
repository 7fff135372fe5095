package gate

import (
	"github.com/llmsla/llmsla/harness/provenance"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// compareSources compares the provenance of two recorded runs (their
// configuration lines, and unless opts.RunsOnly what their samples say
// answered) into rep, and returns the sources with their samples read,
// so that they are read once.
func compareSources(rep *Report, base, new recording.Source, confs [2]recording.Config, opts Options) (recording.Source, recording.Source, error) {
	srcs := [2]recording.Source{base, new}
	var provs [2]sample.Provenance
	for i := range srcs {
		provs[i] = confs[i].Provenance()
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
