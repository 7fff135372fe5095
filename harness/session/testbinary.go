package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// A bench runs the suites' test binary twice (the plan, then the run),
// and a CI job or a test suite runs many benches: `go test` links the
// binary anew each time (3 s of CPU on a 2-core runner, more under load),
// which was most of the wall time of a short bench. So the binary is
// built once into the user's cache, where `go test -c` finds it up to
// date by its build ID and does not link again (0.8 s), and each run
// executes its own hard link of it: a later build replaces the cached
// file (the go command removes it before writing), never the binary a
// run is executing.

// testBinary is the suites' package built as a test binary: the path of
// this run's own link to it, the package's directory (the binary runs
// there, as go test runs it), and what removes the link.
type testBinary struct {
	Path, Dir string
	remove    func()
}

// build builds pkg's test binary (go test -c), or finds it up to date.
func build(pkg string) (testBinary, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		return testBinary{}, fmt.Errorf("go list %s: %w%s", pkg, err, stderrOf(err))
	}
	dirs := strings.Fields(strings.TrimSpace(string(out)))
	if len(dirs) != 1 {
		return testBinary{}, fmt.Errorf("-pkg %s names %d packages: name the one package of the suites", pkg, len(dirs))
	}
	dir := dirs[0]
	cache, err := binaryCache()
	if err != nil {
		return testBinary{}, err
	}
	sum := sha256.Sum256([]byte(dir))
	cached := filepath.Join(cache, "suites-"+hex.EncodeToString(sum[:8])+".test")
	unlock, err := lockFile(cached + ".lock")
	if err != nil {
		return testBinary{}, err
	}
	defer unlock()
	cmd := exec.Command("go", "test", "-c", "-o", cached, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return testBinary{}, fmt.Errorf("go test -c %s: %w\n%s", pkg, err, strings.TrimSpace(string(out)))
	}
	removeOrphans(cached)
	own := fmt.Sprintf("%s.%d.%d", cached, os.Getpid(), links.Add(1))
	if err := os.Link(cached, own); err != nil {
		return testBinary{}, fmt.Errorf("test binary: %w", err)
	}
	return testBinary{Path: own, Dir: dir, remove: func() { os.Remove(own) }}, nil
}

// Remove removes the run's link.
func (b testBinary) Remove() {
	if b.remove != nil {
		b.remove()
	}
}

// binaryCache is llmsla's directory in the user's cache (private to the
// user: nobody else may put a binary there for llmsla to run).
func binaryCache() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the suites' test binary (%v): set $XDG_CACHE_HOME or $HOME", err)
	}
	dir := filepath.Join(base, "llmsla", "suites")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cache for the suites' test binary: %w", err)
	}
	return dir, nil
}

// links numbers a process's links, which may run at once.
var links atomic.Int64

// removeOrphans removes the links of processes gone (killed before they
// could remove theirs).
func removeOrphans(cached string) {
	stale, _ := filepath.Glob(cached + ".*.*")
	for _, p := range stale {
		pid, err := strconv.Atoi(strings.Split(strings.TrimPrefix(p, cached+"."), ".")[0])
		if err == nil && pid != os.Getpid() && !alive(pid) {
			os.Remove(p)
		}
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return "\n" + strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}
