package session

import "syscall"

// dieWithParent has the kernel kill the child when llmsla dies. It
// reaches the go command only, not the test binary go test starts: the
// watchdog sees to that.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
