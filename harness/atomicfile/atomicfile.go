// Package atomicfile writes files so that a reader sees the old file or the
// new one, never half of one: results, baselines and golden files are read
// by other processes (CI steps, the gate) while a run may be interrupted.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same directory
// (created if missing), synced, then renamed over path.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := Stage(dir, filepath.Base(path), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	return os.Rename(tmp, path)
}

// Stage writes data to a synced temporary file in dir, named after name,
// and returns its path, for the caller to rename when several files must
// be replaced together. Nothing is left behind on error.
func Stage(dir, name string, data []byte) (string, error) {
	tmp, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}
