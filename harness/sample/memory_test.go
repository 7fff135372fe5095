package sample_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

// memoryBudget is the address space a reader may take beyond what the
// test process holds when it starts: a line of 2 GB, a shard count of
// 2·10⁹ or 10 million lines must each end within it.
const memoryBudget = 512 << 20

// memoryCases each read a hostile input and return an error when the
// reader did not end as it should; run in a child process whose address
// space is limited (RLIMIT_AS, as ulimit -v), so that a reader that reads
// without bound dies of it instead of passing slowly.
var memoryCases = map[string]struct {
	slow bool
	run  func(dir string) error
}{
	"a 2 GB line": {run: func(dir string) error {
		// A FIFO fed lazily: the 2 GB are never on disk, and Read sees a
		// file as it would any other.
		p := fifo(dir, "long.samples.jsonl", func(w io.Writer) {
			io.WriteString(w, `{"scenario":"chat","endpoint":"e","content":"`)
			io.Copy(w, io.LimitReader(repeat('a'), 2<<30))
			io.WriteString(w, "\"}\n")
		})
		_, err := sample.Read(p)
		return want(err, p+":1: a line longer than 16 MiB")
	}},
	"a shard count of 2·10⁹": {run: func(dir string) error {
		p := filepath.Join(dir, "forged.samples.jsonl")
		line := strings.Replace(realLine, `"seq":3`, `"shard":"0/2000000000","seq":3`, 1)
		if err := os.WriteFile(p, []byte(line+"\n"), 0o644); err != nil {
			return err
		}
		s, _, err := sample.ReadAll([]string{p}, false)
		if err != nil {
			return err
		}
		return want(sample.CheckShards(s), "and 1999999989 more missing: a run of 2000000000 shards")
	}},
	"10 million lines, streamed": {slow: true, run: func(string) error {
		const lines = 10_000_000
		line := []byte(`{"scenario":"c","endpoint":"e","t0":"2026-01-01T00:00:00Z","total_ns":5}` + "\n")
		sc := sample.NewScanner(io.LimitReader(repeatLine(line), int64(lines*len(line))), "big.samples.jsonl")
		n := 0
		for sc.Scan() {
			n++
		}
		if sc.Err() != nil || n != lines {
			return fmt.Errorf("read %d of %d lines: %v", n, lines, sc.Err())
		}
		return nil
	}},
}

// TestBoundedMemory runs each memory case in a child process under its
// budget: it fails when the reader takes more (the child dies of it) or
// ends otherwise than it should. It reports each child's peak (VmHWM).
func TestBoundedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("limits the address space with RLIMIT_AS and reads /proc")
	}
	for name, tc := range memoryCases {
		t.Run(name, func(t *testing.T) {
			if tc.slow && testing.Short() {
				t.Skip("10 million lines take about a minute")
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "LLMSLA_MEMORY_CASE="+name, "GOMAXPROCS=2")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("under a %d MiB budget: %v\n%s", memoryBudget>>20, err, tail(out))
			}
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "peak ") {
					t.Log(strings.TrimSpace(l))
				}
			}
		})
	}
}

// TestMemoryChild is TestBoundedMemory's child: it limits its own address
// space, then runs the case it was started for.
func TestMemoryChild(t *testing.T) {
	name := os.Getenv("LLMSLA_MEMORY_CASE")
	if name == "" {
		t.Skip("run by TestBoundedMemory")
	}
	start := procStatus(t, "VmSize")
	limit := uint64(start + memoryBudget)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	if err := memoryCases[name].run(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: peak %d MiB resident (VmHWM), address space %d MiB of %d MiB allowed", name, procStatus(t, "VmHWM")>>20, procStatus(t, "VmPeak")>>20, limit>>20)
}

// procStatus reads a size (in bytes) from /proc/self/status.
func procStatus(t *testing.T, key string) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", key)
	return 0
}

// fifo makes a named pipe in dir fed by write from a goroutine.
func fifo(dir, name string, write func(io.Writer)) string {
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		panic(err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		write(f) // stops at EPIPE once the reader has closed
	}()
	return p
}

func want(err error, msg string) error {
	if err == nil || !strings.Contains(err.Error(), msg) {
		return fmt.Errorf("error %v, want one saying %q", err, msg)
	}
	return nil
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}

type repeatByte byte

func repeat(c byte) io.Reader { return repeatByte(c) }

func (c repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// lineRepeater repeats a line without end.
type lineRepeater struct {
	line []byte
	off  int
}

func repeatLine(line []byte) io.Reader { return &lineRepeater{line: line} }

func (r *lineRepeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}
