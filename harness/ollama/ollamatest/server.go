package ollamatest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/internal/ci"
)

// Option configures [Start] and [Shared].
type Option func(*config)

type config struct {
	binary, model string
	env           []string
	startTimeout  time.Duration
	grace         time.Duration
}

// BinaryPath uses the ollama binary at p instead of looking for one.
func BinaryPath(p string) Option { return func(c *config) { c.binary = p } }

// ModelPath serves the gguf at p instead of the checksummed test model.
func ModelPath(p string) Option { return func(c *config) { c.model = p } }

// Env adds KEY=VALUE settings to the server's environment, after the
// package's own (so OLLAMA_KEEP_ALIVE=0 or OLLAMA_NUM_PARALLEL=4 work).
func Env(kv ...string) Option { return func(c *config) { c.env = append(c.env, kv...) } }

// StartTimeout bounds the wait for the server to answer GET / (default 30s).
func StartTimeout(d time.Duration) Option { return func(c *config) { c.startTimeout = d } }

// resolve applies opts and finds the binary and model, returning errors that
// wrap ErrNoBinary / ErrNoModel when either is missing.
func resolve(opts []Option) (config, error) {
	c := config{startTimeout: 30 * time.Second, grace: 5 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	var err error
	if c.binary == "" {
		c.binary, err = Binary()
	} else if e := executable(c.binary); e != nil {
		err = fmt.Errorf("%w: %v", ErrNoBinary, e)
	}
	if err != nil {
		return c, err
	}
	if c.model == "" {
		c.model, err = Model()
	} else if _, e := os.Stat(c.model); e != nil {
		err = fmt.Errorf("%w: %v", ErrNoModel, e)
	}
	return c, err
}

// unavailable ends a test that cannot get a server. A missing binary or
// model is a local convenience (skip) but a CI misconfiguration (fail):
// a CI run that silently skips its real-endpoint tests proves nothing.
func unavailable(t testing.TB, err error) {
	t.Helper()
	switch {
	case !errors.Is(err, ErrNoBinary) && !errors.Is(err, ErrNoModel):
		t.Fatalf("ollama: %v", err)
	case ci.On():
		t.Fatalf("ollama: %v (CI must not skip the real-endpoint tests)", err)
	default:
		t.Skipf("ollama: %v", err)
	}
}

// Server is a running `ollama serve` with the test model created as "tiny".
type Server struct {
	host    string // 127.0.0.1:port
	dir     string // OLLAMA_MODELS, HOME and the log live here
	logPath string
	grace   time.Duration

	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd.Wait has returned
	waitErr error
	log     *os.File

	// watchdog kills the process group when its stdin (watchPipe, held
	// only by us) closes, i.e. when the test process dies.
	watchdog  *exec.Cmd
	watchPipe *os.File

	stopOnce sync.Once
	stopErr  error
}

// BaseURL is the OpenAI-compatible root, e.g. http://127.0.0.1:41234/v1.
func (s *Server) BaseURL() string { return "http://" + s.host + "/v1" }

// Host is the native API root, e.g. http://127.0.0.1:41234, for [Chat].
func (s *Server) Host() string { return "http://" + s.host }

// ModelName is the name the test model is served under.
func (s *Server) ModelName() string { return "tiny" }

// LogTail returns the last lines of the server's log (stdout and stderr of
// ollama serve and its runner), for failure messages.
func (s *Server) LogTail() string { return tail(s.logPath, 40) }

// Start starts a server for t and stops it in t.Cleanup; the server log is
// attached to the test's output if the test failed. When the binary or model
// is missing it skips t, or fails it under CI=true.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	c, err := resolve(opts)
	if err != nil {
		unavailable(t, err)
		return nil // reached only with a fake testing.TB
	}
	s, err := launch(c, t.TempDir())
	if err != nil {
		t.Fatalf("ollama: %v", err)
		return nil
	}
	// Registered after t.TempDir's own cleanup, so it runs first and the
	// log is still there to read.
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Logf("ollama: %v", err)
		}
		if t.Failed() {
			t.Logf("ollama server log (tail):\n%s", s.LogTail())
		}
	})
	return s
}

// launch starts ollama serve in dir, waits for it and creates "tiny". On
// error nothing is left running.
func launch(c config, dir string) (*Server, error) {
	var lastErr error
	// The free port is found by binding and closing; another process may
	// take it before ollama binds, so a bind failure is retried.
	for range 3 {
		s, err := spawn(c, dir)
		if err != nil {
			return nil, err
		}
		err = s.waitReady(c.startTimeout)
		if err == nil {
			if err = s.createModel(c.model); err == nil {
				return s, nil
			}
		}
		_ = s.stop()
		lastErr = fmt.Errorf("%w\n--- ollama server log (tail) ---\n%s", err, s.LogTail())
		if !strings.Contains(s.LogTail(), "address already in use") {
			break
		}
	}
	return nil, lastErr
}

func spawn(c config, dir string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{
		host:    "127.0.0.1:" + strconv.Itoa(port),
		dir:     dir,
		logPath: filepath.Join(dir, "ollama.log"),
		grace:   c.grace,
		exited:  make(chan struct{}),
	}
	for _, d := range []string{"models", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	// Appending keeps the log of a failed earlier attempt.
	if s.log, err = os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(c.binary, "serve")
	s.cmd.Env = append(os.Environ(),
		"OLLAMA_HOST="+s.host,
		"OLLAMA_MODELS="+filepath.Join(dir, "models"),
		// serve writes a key pair under $HOME/.ollama; keep it out of the
		// real home directory.
		"HOME="+filepath.Join(dir, "home"),
	)
	s.cmd.Env = append(s.cmd.Env, c.env...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// Own group: stop signals reach the runner that serve forks, and a
	// Ctrl-C on the terminal does not. Pdeathsig: serve dies with the
	// thread that started it, i.e. with the test binary (Go does not retire
	// threads of goroutines that are not locked to them).
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.log.Close()
		return nil, fmt.Errorf("start %s serve: %w", c.binary, err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	s.startWatchdog()
	return s, nil
}

// startWatchdog covers what Pdeathsig cannot: the runner process that serve
// forks has no death signal, so a killed test binary would leave it
// orphaned. The watchdog, a shell in the server's group, reads its stdin
// until EOF, which comes when the test process exits however it exits, and
// then kills the group. Without /bin/sh the server still runs, unguarded.
// (No "--" before the negative id: dash, Debian's sh, rejects it.)
func (s *Server) startWatchdog() {
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	defer r.Close()
	pgid := s.cmd.Process.Pid
	wd := exec.Command("/bin/sh", "-c", `trap '' INT HUP; read _; kill -KILL -"$1"`,
		"llmsla-ollama-watchdog", strconv.Itoa(pgid))
	wd.Stdin = r
	wd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := wd.Start(); err != nil {
		fmt.Fprintf(s.log, "llmsla: no watchdog: %v\n", err)
		w.Close()
		return
	}
	s.watchdog, s.watchPipe = wd, w
}

// stop ends the server: SIGTERM to the group (serve unloads its runners on
// it), SIGKILL after the grace period, then SIGKILL to whatever is left in
// the group. It is safe to call more than once.
func (s *Server) stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.doStop() })
	return s.stopErr
}

func (s *Server) doStop() error {
	// Disarm the watchdog first: once the group is gone its id may be
	// reused, and the watchdog must not kill a stranger.
	if s.watchdog != nil {
		_ = s.watchdog.Process.Kill()
		_ = s.watchdog.Wait()
		s.watchPipe.Close()
	}
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	var err error
	select {
	case <-s.exited:
	case <-time.After(s.grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.exited
		err = fmt.Errorf("ollama serve ignored SIGTERM for %v; killed", s.grace)
	}
	// A runner still in the group keeps the group id alive, so this cannot
	// hit a reused id; on an empty group it fails with ESRCH.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	s.log.Close()
	return err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls GET / until it answers 200, serve exits, or timeout.
func (s *Server) waitReady(timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("ollama serve on %s exited before answering: %v", s.host, s.waitErr)
		default:
		}
		resp, err := client.Get(s.Host() + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ollama serve on %s did not answer GET / within %v: %v", s.host, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tail returns the last n lines of the file at p, reading at most 16 KiB.
func tail(p string, n int) string {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	const max = 16 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(-max, 2)
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
