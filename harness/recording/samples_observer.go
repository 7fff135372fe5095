package recording

import (
	"context"

	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
)

// Samples is the observer that writes every sample of a session to its
// samples file as the request ends — warm-up, cold and probe requests
// included, flagged — but the measured samples of a level an amender
// holds (the judge's), written at its end once amended. A sample the file
// cannot take (one the reader would refuse, a failed write) stops the
// session: a record that misses requests must not pass for the run's.
type Samples struct {
	observe.Nop
	f *sample.File
}

// NewSamples is the observer of the samples file f (sample.Create).
func NewSamples(f *sample.File) *Samples { return &Samples{f: f} }

// Sample writes s, unless its level holds it.
func (o *Samples) Sample(lv *observe.Level, s *sample.Sample) {
	if lv.Held && s.Measured() {
		return
	}
	o.write(lv, s)
}

// LevelEnd writes a held level's measured samples.
func (o *Samples) LevelEnd(_ context.Context, lv *observe.Level, samples []sample.Sample) {
	if !lv.Held {
		return
	}
	for i := range samples {
		if samples[i].Measured() {
			o.write(lv, &samples[i])
		}
	}
}

func (o *Samples) write(lv *observe.Level, s *sample.Sample) {
	if o.f.Err() != nil {
		return // stopped already
	}
	o.f.Write(s)
	if err := o.f.Err(); err != nil {
		lv.Stop(err)
	}
}

// Err is the file's first error.
func (o *Samples) Err() error { return o.f.Err() }

// Close closes the file.
func (o *Samples) Close() error { return o.f.Close() }
