//go:build linux

package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envHelper makes the test binary a stand-in server (helperServer).
const envHelper = "LLMSLA_SERVER_TEST_HELPER"

// helperMiB is the memory the stand-in server holds, and helperSpin the
// CPU it burns, before it says it is ready.
const (
	helperMiB  = 96
	helperSpin = 400 * time.Millisecond
)

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) != "" {
		helperServer()
		return
	}
	os.Exit(m.Run())
}

// helperServer listens on a loopback port, starts a child (as vLLM's
// engine and Ollama's runner are), touches helperMiB of memory, spins
// until it has used helperSpin of CPU, says "port child-pid cpu-ns" (its
// CPU time as getrusage counts it: the truth /proc is held to) and waits
// for its stdin to close.
func helperServer() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		panic(err)
	}
	mem := make([]byte, helperMiB<<20)
	for i := range mem {
		mem[i] = byte(i)
	}
	for cpuTime() < helperSpin {
	}
	fmt.Printf("%d %d %d\n", ln.Addr().(*net.TCPAddr).Port, child.Process.Pid, cpuTime())
	bufio.NewReader(os.Stdin).ReadString('\n')
	child.Process.Kill()
	runtime.KeepAlive(mem)
}

// TestProcessFoundByPort: the process listening on a port is found by
// it, and its tree's memory and CPU are read as the stand-in server
// spent them; its child is part of the tree.
func TestProcessFoundByPort(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process figures need Linux's /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	f := strings.Fields(line)
	require.Len(t, f, 3)
	port, _ := strconv.Atoi(f[0])
	childPID, _ := strconv.Atoi(f[1])
	spent, _ := strconv.ParseInt(f[2], 10, 64)

	pid, err := FindListener(port)
	require.NoError(t, err)
	assert.Equal(t, cmd.Process.Pid, pid, "the process listening on port %d", port)

	p := NewProcess(pid)
	tree, err := p.tree()
	require.NoError(t, err)
	assert.True(t, slices.Contains(tree, childPID), "its child %d in the tree %v", childPID, tree)
	var rd Reading
	require.NoError(t, p.Read(context.Background(), &rd))
	var rss, cpu float64
	for _, s := range rd.Series {
		switch s.Name {
		case ProcessRSS:
			rss = s.Value
		case ProcessCPU:
			cpu = s.Value
		}
	}
	t.Logf("pid %d: rss %.0f MiB, cpu %.2f s", pid, rss/(1<<20), cpu)
	assert.GreaterOrEqual(t, rss, float64(helperMiB<<20), "it touched %d MiB", helperMiB)
	assert.Less(t, rss, float64((helperMiB+200)<<20), "and not much more")
	// /proc counts in ticks of 10 ms; the helper idles once it has said
	// what it spent.
	assert.InDelta(t, time.Duration(spent).Seconds(), cpu, 0.05, "the CPU it says it spent, %v", time.Duration(spent))

	_, err = FindListener(freePort(t))
	assert.ErrorContains(t, err, "no socket listens on port")
}

// freePort is a port nothing listens on.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// cpuTime is the process's user and system CPU time, as getrusage says.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
