// Package modroot finds the module root: the directory holding go.mod, which
// fixture, schema, golden and configuration paths are relative to (go test
// runs in the package's own directory, the user types paths from the root).
package modroot

import (
	"errors"
	"os"
	"path/filepath"
)

// Find walks up from dir to the first directory holding go.mod.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !st.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("no go.mod above " + dir)
		}
		d = parent
	}
}

// FromWD is Find from the working directory.
func FromWD() (string, error) { return Find(".") }

// Path is path taken from the module root unless it is absolute: suites
// and SLA files name fixtures, schemas and rubrics from there, and go
// test runs in the package's directory.
func Path(path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	root, err := FromWD()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, path), nil
}
