package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// The server's process on this machine, read from Linux's /proc: its
// resident memory and CPU time, its children's included (vLLM's engine
// core and Ollama's model runner are child processes of the one that
// listens). It is the process server_pid: names, else the one listening
// on the base URL's port when that URL is on loopback (FindListener).
// Other systems have no process figures.

// Process is the source of a process tree's memory and CPU.
type Process struct {
	pid  int
	proc string // /proc, or a test's copy of it
}

// NewProcess returns the source of process pid and its descendants.
func NewProcess(pid int) *Process { return &Process{pid: pid, proc: "/proc"} }

// Name is the source's name in readings.
func (p *Process) Name() string { return SourceProcess }

// PID is the process read.
func (p *Process) PID() int { return p.pid }

// ErrNoProc is the error on systems without /proc.
var ErrNoProc = errors.New("process figures need Linux's /proc")

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's CPU times:
// 100 on every architecture Go supports (the kernel hides its own HZ).
const clockTicks = 100

// Read reads the tree's resident memory (the sum of each process's
// resident pages) and CPU seconds (user and system, and those of the
// children that ended and were waited for).
func (p *Process) Read(ctx context.Context, rd *Reading) error {
	if runtime.GOOS != "linux" {
		return ErrNoProc
	}
	tree, err := p.tree()
	if err != nil {
		return err
	}
	page := float64(os.Getpagesize())
	var rss, cpu float64
	for _, pid := range tree {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		st, err := p.stat(pid)
		if err != nil {
			if pid == p.pid {
				return fmt.Errorf("process %d: %w", pid, err)
			}
			continue // a child that just ended
		}
		rss += float64(st.rssPages) * page
		cpu += float64(st.ticks) / clockTicks
	}
	rd.Series = []Series{
		{Name: ProcessCPU, Type: Counter, Value: cpu, Labels: fmt.Sprintf("pid=%q", strconv.Itoa(p.pid))},
		{Name: ProcessRSS, Type: Gauge, Value: rss, Labels: fmt.Sprintf("pid=%q", strconv.Itoa(p.pid))},
	}
	return nil
}

// procStat is what one /proc/PID/stat says.
type procStat struct {
	ppid     int
	ticks    int64 // utime + stime + cutime + cstime
	rssPages int64
}

// stat reads /proc/PID/stat: after the command (in parentheses, which it
// may itself hold), field 4 is the parent, 14–17 the CPU times, 24 the
// resident pages (proc(5)).
func (p *Process) stat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(p.proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("stat: no command field")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 22 {
		return procStat{}, fmt.Errorf("stat: %d fields", len(f)+2)
	}
	num := func(field int) int64 {
		n, _ := strconv.ParseInt(f[field-3], 10, 64)
		return n
	}
	return procStat{ppid: int(num(4)), ticks: num(14) + num(15) + num(16) + num(17), rssPages: num(24)}, nil
}

// tree lists pid and its descendants.
func (p *Process) tree() ([]int, error) {
	if _, err := os.Stat(filepath.Join(p.proc, strconv.Itoa(p.pid))); err != nil {
		return nil, fmt.Errorf("process %d: %w", p.pid, err)
	}
	entries, err := os.ReadDir(p.proc)
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := p.stat(pid); err == nil {
			children[st.ppid] = append(children[st.ppid], pid)
		}
	}
	out := []int{p.pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

// FindListener returns the process listening on TCP port on this
// machine: the socket in LISTEN state on that port in /proc/net/tcp and
// tcp6, and the process holding it among /proc/*/fd (which needs the
// right to read that process's descriptors: the same user, or root).
func FindListener(port int) (int, error) { return findListener("/proc", port) }

func findListener(proc string, port int) (int, error) {
	if runtime.GOOS != "linux" {
		return 0, ErrNoProc
	}
	inodes := map[string]bool{}
	for _, table := range []string{"tcp", "tcp6"} {
		listening(filepath.Join(proc, "net", table), port, inodes)
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no socket listens on port %d here", port)
	}
	entries, err := os.ReadDir(proc)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join(proc, e.Name(), "fd"))
		if err != nil {
			continue // another user's process
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(proc, e.Name(), "fd", fd.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.Trim(link[len("socket:"):], "[]")] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("a socket listens on port %d, but no process this user may read holds it", port)
}

// listening adds the inodes of the sockets of a /proc/net/tcp table in
// LISTEN state (0A) on port.
func listening(path string, port int, inodes map[string]bool) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
			inodes[f[9]] = true
		}
	}
}
