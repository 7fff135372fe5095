package ollamatest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc is the part of /proc/<pid>/stat the tests need.
type proc struct {
	pid, ppid, pgrp int
	comm            string
	state           byte
}

func procs(t *testing.T) []proc {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var ps []proc
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		// comm is parenthesised and may hold spaces and parentheses;
		// the fields after the last ')' are plain.
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		f := strings.Fields(s[close+1:])
		if open < 0 || close < open || len(f) < 3 {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		ps = append(ps, proc{pid: pid, ppid: ppid, pgrp: pgrp, comm: s[open+1 : close], state: f[0][0]})
	}
	return ps
}

// leftovers lists live (not zombie) processes in group pgid, and ollama
// processes that are children of this test binary other than the shared
// server.
func leftovers(t *testing.T, pgid int) []proc {
	var bad []proc
	for _, p := range procs(t) {
		if p.state == 'Z' {
			continue
		}
		ours := p.ppid == os.Getpid() && p.comm == "ollama" && (shared.s == nil || p.pid != shared.s.cmd.Process.Pid)
		if p.pgrp == pgid || ours {
			bad = append(bad, p)
		}
	}
	return bad
}

// waitGone polls for up to 5 s: a runner orphaned by serve's exit is
// reaped by init, not by us, and may linger for a moment.
func waitGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		bad := leftovers(t, pgid)
		if len(bad) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind: %+v", bad)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOllamaCleanupLeavesNothing(t *testing.T) {
	var pgid int
	t.Run("server", func(t *testing.T) {
		s := Start(t)
		chat(t, s, ask(s, 2)) // so that serve has forked its runner
		pgid = s.cmd.Process.Pid
		var names []string
		for _, p := range procs(t) {
			if p.pgrp == pgid {
				names = append(names, p.comm)
			}
		}
		t.Logf("group %d while running: %v", pgid, names)
		if len(names) < 3 { // serve, runner, watchdog
			t.Errorf("group %d has %v, want serve, runner and watchdog", pgid, names)
		}
	})
	if pgid == 0 {
		t.Skip("no server started")
	}
	waitGone(t, pgid)
}

// TestOllamaKilledTestBinaryLeavesNothing SIGKILLs a test binary that is
// running a server with a loaded model, which is what a test timeout or an
// OOM kill looks like from outside, and checks that the group dies with it.
func TestOllamaKilledTestBinaryLeavesNothing(t *testing.T) {
	if _, err := resolve(nil); err != nil {
		unavailable(t, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOllamaHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "LLMSLA_OLLAMA_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // only if a check below fails early
	pgid := 0
	sc := bufio.NewScanner(out)
	for pgid == 0 && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PGID "); ok {
			pgid, _ = strconv.Atoi(v)
		}
	}
	if pgid == 0 {
		t.Fatalf("helper did not report its server's group (%v)", sc.Err())
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	waitGone(t, pgid)
}

// TestOllamaHelperProcess is the test binary that the test above kills; it
// does nothing in a normal run (and does not skip either, so that a CI log
// shows no skipped test; os/exec's helper-process tests do the same).
func TestOllamaHelperProcess(t *testing.T) {
	if os.Getenv("LLMSLA_OLLAMA_HELPER") != "1" {
		return
	}
	s := Start(t)
	chat(t, s, ask(s, 2))
	os.Stdout.WriteString("PGID " + strconv.Itoa(s.cmd.Process.Pid) + "\n")
	time.Sleep(time.Minute) // killed long before
}
