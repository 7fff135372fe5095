package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Copy is one file of a set replaced together: From's content becomes To.
type Copy struct{ From, To string }

// Replace replaces a set of files that readers take together (a run's
// results and its samples, a baseline's): every copy is staged in its
// directory first, then renamed in order, so that a failure to read or
// write leaves every target as it was, and a reader never sees a new file
// before the one it looks for beside it when that is renamed first. A
// rename failing after the first is said with which targets are new.
func Replace(copies ...Copy) error {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // a no-op once renamed
		}
	}()
	for _, c := range copies {
		b, err := os.ReadFile(c.From)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(c.To), 0o755); err != nil {
			return err
		}
		t, err := Stage(filepath.Dir(c.To), filepath.Base(c.To), b)
		if err != nil {
			return err
		}
		tmps = append(tmps, t)
	}
	for i, c := range copies {
		if err := os.Rename(tmps[i], c.To); err != nil {
			if i > 0 {
				return fmt.Errorf("%w: %s is new, %s is not: do not read them together, write them again", err, copies[i-1].To, c.To)
			}
			return err
		}
	}
	return nil
}
