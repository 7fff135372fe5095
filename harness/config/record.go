package config

import (
	"path/filepath"

	"github.com/llmsla/llmsla/harness/sample"
)

// The provenance keys of the configuration a run was measured under
// (Record): the verdicts, reports and gate of the run judge it against
// that configuration, not the one of the shell they run in.
const (
	// KeyFile is the SLA file, relative to the module root when it lies
	// in it (as Path resolves a relative $LLMSLA_CONFIG), else absolute.
	KeyFile = "config.file"
	// KeyDigest is the digest of the file's bytes the run parsed (Digest).
	KeyDigest = "config.sha256"
	// KeySource is where a configuration without a file came from (the
	// environment, the built-in simulator): the presets' objectives.
	KeySource = "config.source"
)

// Record records in p the configuration a run is measured under: its
// SLA file and the digest of what was parsed, or where it came from when
// no file was read.
func (c *Config) Record(p sample.Provenance) {
	if c.file == "" {
		p.Set(c.Source, KeySource)
		return
	}
	path := c.file
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
		if root, err := ModuleRoot(); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
				path = rel
			}
		}
	}
	p.Set(path, KeyFile)
	p.Set(c.digest, KeyDigest)
}
