package ollamatest

import (
	"errors"
	"os"
	"sync"
	"testing"
)

var shared struct {
	once sync.Once
	s    *Server
	err  error
}

// Shared returns one server for the whole test package, started by the
// first caller (whose opts are the only ones used) and reused by the rest,
// so a package pays the start-up and model load once. Missing binary or
// model: skip, or fail under CI=true, as [Start].
//
// The package's TestMain must stop it:
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		ollamatest.StopShared()
//		os.Exit(code)
//	}
//
// Forgetting to do so leaks a temporary directory but no process: the
// server dies with the test binary (see the package doc).
func Shared(t testing.TB, opts ...Option) *Server {
	t.Helper()
	shared.once.Do(func() {
		c, err := resolve(opts)
		if err != nil {
			shared.err = err
			return
		}
		dir, err := os.MkdirTemp("", "llmsla-ollama-")
		if err != nil {
			shared.err = err
			return
		}
		if shared.s, shared.err = launch(c, dir); shared.err != nil {
			os.RemoveAll(dir)
		}
	})
	if shared.err != nil {
		unavailable(t, shared.err)
		return nil
	}
	return shared.s
}

// StopShared stops the server [Shared] started, if any, and removes its
// directory. Call it once, after m.Run.
func StopShared() error {
	s := shared.s
	if s == nil {
		return nil
	}
	err := s.stop()
	return errors.Join(err, os.RemoveAll(s.dir))
}
