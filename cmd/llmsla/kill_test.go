//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/sim"
)

// TestBenchKilledTakesItsChildren: `kill -9` of llmsla bench leaves no
// test binary behind sending requests. The endpoint is a
// simulator in this process, so the test sees the requests stop; on Linux
// it also sees every process of go test's group gone.
func TestBenchKilledTakesItsChildren(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmsla and runs go test on the suites")
	}
	cfg := sim.Default()
	cfg.TTFT = 100 * time.Millisecond
	srv, base := sim.Start(t, cfg)
	simEnv(t, "")
	useConfig(t, fmt.Sprintf("endpoints:\n  slow: {base_url: %q, model: sim}\nscenarios:\n  chat: {concurrency: [2]}\n", base))
	bin := buildLlmsla(t, false)
	// 1000 requests a run: a minute in which go test writes nothing, so
	// that no broken pipe kills it either.
	cmd := exec.Command(bin, "bench", "-pkg", suites, "-bench", "Chat", "-count", "10", "-n", "1000", "-out", t.TempDir())
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(srv.Truth()) < 10 { // past the probe run: in the timed one
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no requests after 60 s:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	group := 0 // the test binary's process group: its pid
	if runtime.GOOS == "linux" {
		group = childNamed(t, cmd.Process.Pid, "suites-")           // the cached suites-<hash>.test's link
		t.Cleanup(func() { syscall.Kill(-group, syscall.SIGKILL) }) // whatever the test finds
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed := time.Now()

	// The requests stop: none in flight and none new for half a second,
	// within 10 s (before the watchdog, they went on for half a minute).
	last, quiet := len(srv.Truth()), time.Now()
	for time.Since(quiet) < 500*time.Millisecond || srv.InFlight() > 0 {
		if time.Since(killed) > 10*time.Second {
			t.Fatalf("requests still sent 10 s after llmsla was killed: %d in flight, %d in all", srv.InFlight(), len(srv.Truth()))
		}
		if n := len(srv.Truth()); n != last || srv.InFlight() > 0 {
			last, quiet = n, time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	if group != 0 {
		for alive := groupAlive(group); len(alive) > 0; alive = groupAlive(group) {
			if time.Since(killed) > 10*time.Second {
				t.Fatalf("processes of go test's group %d alive 10 s after llmsla was killed: %v", group, alive)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("requests stopped and go test's group was gone %v after the kill", time.Since(killed).Round(time.Millisecond))
}

// procStat reads pid's command name, state, parent and process group from
// /proc/<pid>/stat; ok is false when the process is gone.
func procStat(pid int) (comm string, state byte, ppid, pgid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, 0, 0, false
	}
	s := string(b)
	open, shut := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || shut < open {
		return "", 0, 0, 0, false
	}
	f := strings.Fields(s[shut+1:])
	if len(f) < 3 {
		return "", 0, 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgid, _ = strconv.Atoi(f[2])
	return s[open+1 : shut], f[0][0], ppid, pgid, true
}

func pids(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// childNamed finds the child of parent whose command name begins with comm.
func childNamed(t *testing.T, parent int, comm string) int {
	t.Helper()
	pid := childOf(parent, comm)
	if pid == 0 {
		t.Fatalf("no child %q of %d", comm, parent)
	}
	return pid
}

// childOf is childNamed's child, 0 when there is none.
func childOf(parent int, comm string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if c, _, ppid, _, ok := procStat(pid); ok && ppid == parent && strings.HasPrefix(c, comm) {
			return pid
		}
	}
	return 0
}

// groupAlive lists the processes of group that are alive: present and not
// zombies (which nothing here may reap).
func groupAlive(group int) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, state, _, pgid, ok := procStat(pid); ok && pgid == group && state != 'Z' {
			out = append(out, fmt.Sprintf("%d %s", pid, comm))
		}
	}
	return out
}
