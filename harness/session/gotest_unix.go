//go:build unix

package session

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// ownGroup starts cmd in a process group of its own so that signal can
// reach the test binary too: `go test` does not pass a signal on to the
// binary it runs, it counts on the terminal sending it to the whole
// foreground group, and a `kill -INT` of llmsla (or a CI runner cancelling
// the job) would otherwise leave the benchmark running. On Linux the go
// command also gets SIGKILL when llmsla dies (see dieWithParent).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// signalGroup sends s to cmd's process group.
func signalGroup(cmd *exec.Cmd, s os.Signal) error {
	if sig, ok := s.(syscall.Signal); ok {
		return syscall.Kill(-cmd.Process.Pid, sig)
	}
	return cmd.Process.Signal(s)
}

// watchdogScript waits on its standard input, a pipe only llmsla writes
// to: "done" when llmsla has waited for its child, or the end of the
// pipe when llmsla died without saying so (kill -9, a crash, the OOM
// killer), which the kernel closes with the process. Then it kills the
// child's process group: the go command, the test binary it runs, and
// any compiler still at work. A signal cannot do that alone: the test
// binary is go test's child, and Linux's parent-death signal reaches only
// a direct child.
const watchdogScript = `read done; [ "$done" = done ] || kill -KILL "-$1"`

// watchdog starts a process that kills cmd's process group if llmsla dies
// before release is called; call release once cmd has been waited for. It
// is in a group of its own, so that a kill of llmsla's whole group leaves
// it to do its work. Failing to start it is said on stderr and is not
// fatal: the run itself is fine.
func watchdog(cmd *exec.Cmd, stderr io.Writer) (release func()) {
	w := exec.Command("/bin/sh", "-c", watchdogScript, "llmsla-watchdog", strconv.Itoa(cmd.Process.Pid))
	w.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := w.StdinPipe()
	if err == nil {
		err = w.Start()
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmsla: no watchdog for go test (%v): if llmsla is killed, kill process group %d too\n", err, cmd.Process.Pid)
		return func() {}
	}
	return func() {
		io.WriteString(in, "done\n")
		in.Close()
		w.Wait()
	}
}

// lockFile holds an exclusive lock on path (created) until unlock: one
// process at a time builds the cached test binary.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock for the suites' test binary: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock for the suites' test binary: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
