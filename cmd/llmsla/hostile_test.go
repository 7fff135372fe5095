package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/session"
)

// canary is the API key of the hostile cases' environment
// (OPENAI_API_KEY): no form of it may come out.
const canary = "sk-CANARYKEY-0123456789abcdef"

// hostileRow is one attack on a command through the files it reads: the
// crafted samples files, the command's arguments, and what must (want)
// and must not (never, regular expressions) come out. Every row is also
// held to what no row may print: a raw control character, or the canary
// key in any form.
type hostileRow struct {
	cmd   string   // verdict, report or gate
	flags []string // before the files
	// files writes the crafted files into dir and returns the command's
	// file arguments. It runs in the child process, so that a FIFO it
	// makes is fed from there.
	files  func(dir string) []string
	config string // sla.yaml; default one simulated endpoint
	code   int
	want   []string
	never  []string
	check  func(t *testing.T, code int, stdout, stderr string) // more, for an output format
}

// hostileRows: one row per attack (issue 23, items 1–8 and the JSON
// infinity of item 11). The next attack is a row.
var hostileRows = map[string]hostileRow{
	"1 a forged shard count of 2·10⁹": {cmd: "verdict", code: 2,
		files: one(func(s *sample.Sample) { s.Shard = "0/2000000000" }),
		want:  []string{"shard 1/2000000000, 2/2000000000,", "and 1999999989 more missing: a run of 2000000000 shards"}},
	"2 a 2 GB line": {cmd: "verdict", code: 2,
		files: func(dir string) []string {
			return []string{fifo(dir, "long.samples.jsonl", func(w io.Writer) {
				w.Write(lines(measured()[:1]))
				io.WriteString(w, `{"scenario":"chat","endpoint":"sim","content":"`)
				io.Copy(w, io.LimitReader(zeros{}, 2<<30))
				io.WriteString(w, "\"}\n")
			})}
		},
		want: []string{"long.samples.jsonl:2: a line longer than 16 MiB"}, never: []string{`All SLAs met`}},
	"3 a negative total": {cmd: "verdict", code: 2,
		files: one(func(s *sample.Sample) { s.Total = -4 * time.Second }),
		want:  []string{"s.samples.jsonl:3: total_ns: -4000000000 ns is a negative time"}, never: []string{`All SLAs met`}},
	"3 ttft after total": {cmd: "report", code: 2,
		files: one(func(s *sample.Sample) { s.TTFT, s.TTFA = 2*s.Total, 2*s.Total }),
		want:  []string{"s.samples.jsonl:3: ttft_ns: ", " is after total_ns "}},
	"3 output tokens of 2^63−1": {cmd: "gate", code: 2,
		files: func(dir string) []string {
			base := write(filepath.Join(dir, "base"), "s.samples.jsonl", measured()...)
			bad := measured()
			bad[2].OutputTokens = 1<<63 - 1
			return []string{filepath.Dir(base), filepath.Dir(write(filepath.Join(dir, "new"), "s.samples.jsonl", bad...))}
		},
		want: []string{"s.samples.jsonl:3: output_tokens: 9223372036854775807 is out of range (allowed: 0 to 2^31)"}},
	"4 warm-up only": {cmd: "verdict", code: 2,
		files: all(func(s *sample.Sample) { s.Warmup = true }),
		want:  []string{"nothing was measured: the 20 samples are 20 warm-up requests only"}, never: []string{`All SLAs met`}},
	"4 capacity-search steps only": {cmd: "report", code: 2,
		files: all(func(s *sample.Sample) { s.Level = "search=capacity/rate=40" }),
		want:  []string{"nothing was measured: the 20 samples are 20 capacity-search steps"}},
	"5 one process claiming three shards": {cmd: "verdict", code: 2,
		files: all(func(s *sample.Sample) { s.Shard = fmt.Sprintf("%d/3", s.Seq%3) }),
		want:  []string{"process 9cc509ef sent shards 0/3, 1/3, 2/3: one process sends one shard"}},
	"6 terminal escapes in an endpoint's error": {cmd: "verdict", code: 0,
		files: coldError("server_error (HTTP 500): \x1b]52;c;cm0gLXJmIH4K\x07\x1b]0;pwned\x07\x1b[2J\rAll SLAs met.\nforged line"),
		want:  []string{`failed: server_error (HTTP 500): \x1b]52;c;cm0gLXJmIH4K\a\x1b]0;pwned\a\x1b[2J\rAll SLAs met.\nforged line`},
		never: []string{`(?m)^forged line`}},
	"6 a terminal escape in an endpoint's name": {cmd: "verdict", code: 2,
		files: all(func(s *sample.Sample) { s.Endpoint = "sim\x1b[2J\x1b]0;pwned\x07" }),
		want:  []string{`endpoint: "sim\x1b[2J\x1b]0;pwned\a" holds a control character`}},
	"7 a newline in a model forging a row": {cmd: "report", flags: []string{"-format", "markdown"}, code: 2,
		files: all(func(s *sample.Sample) { s.Model = "m\n| **forged** | row |\nBenchmarkFake-2 1 1 ttft-p95-ms" }),
		want:  []string{`model: "m\n| **forged** | row |\nBenchmarkFake-2 1 1 ttft-p95-ms" holds a control character`},
		never: []string{`(?m)^\| \*\*forged`, `(?m)^BenchmarkFake`}},
	"7 tags, links and images in a model name": {cmd: "report", flags: []string{"-format", "markdown"}, code: 0,
		files: all(func(s *sample.Sample) {
			s.Model = `<img src=x onerror=alert(1)>![](https://evil/p.png)[x](https://evil)`
		}),
		want:  []string{`\<img src=x onerror=alert(1)>!\[\](https\://evil/p.png)\[x\](https\://evil)`},
		never: []string{`(^|[^\\])<img`, `(^|[^\\])!\[`, `(^|[^\\])\]\(`, `(^|[^\\])://`}},
	"7 a formula in an endpoint's name": {cmd: "report", flags: []string{"-format", "csv"}, code: 0,
		files: all(func(s *sample.Sample) { s.Endpoint = `=HYPERLINK("https://evil","x")` }),
		check: noFormulas},
	"8 the key upper-cased as a case id": {cmd: "verdict", code: 1,
		files: all(func(s *sample.Sample) {
			s.Case = "case-" + strings.ToUpper(canary)
			s.Quality = &sample.Quality{Case: s.Case, MatchChecked: true, Expected: "positive", Got: "negative"}
		}),
		want: []string{"failing cases (", "case case-[redacted] failed 20 of 20"}},
	"8 the key in base64 in an error": {cmd: "verdict", code: 0,
		files: coldError("client_error (HTTP 401): bad credentials " + base64.StdEncoding.EncodeToString([]byte(canary))),
		want:  []string{"bad credentials [redacted]"}},
	"8 the key in hex in an error": {cmd: "verdict", code: 0,
		files: coldError("client_error (HTTP 401): " + strings.ToUpper(hex.EncodeToString([]byte(canary)))),
		want:  []string{"client_error (HTTP 401): [redacted]"}},
	"8 the key \\u-escaped in an undecodable chunk": {cmd: "verdict", code: 0,
		files: coldError(`protocol: undecodable chunk: {"error":{"message":"` + strings.ReplaceAll(canary, "-", `\u002d`) + `"`),
		want:  []string{`protocol: undecodable chunk: {"error":{"message":"[redacted]"`}},
	"11 a price of 1e308 in JSON": {cmd: "report", flags: []string{"-format", "json"},
		config: "endpoints:\n  sim: {sim: \"\", price: {input_per_mtok: 1e308, output_per_mtok: 1e308, currency: USD}}\n",
		files:  all(func(s *sample.Sample) {}),
		never:  []string{`unsupported value`, `Inf`},
		check:  overflowNotMeasured},
}

// TestHostileInputs runs each row's command in a child process (the test
// binary again) whose address space is limited, so that a reader without
// bounds dies of it instead of passing slowly.
func TestHostileInputs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("limits the address space with RLIMIT_AS and reads /proc")
	}
	for name, row := range hostileRows {
		t.Run(name, func(t *testing.T) {
			cfg := row.config
			if cfg == "" {
				cfg = "endpoints:\n  sim: {sim: \"\"}\n"
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "LLMSLA_HOSTILE_ROW="+name, "LLMSLA_HOSTILE_DIR="+t.TempDir(),
				config.EnvConfig+"="+writeConfig(t, cfg), "OPENAI_API_KEY="+canary,
				config.EnvEndpoints+"=", config.EnvSim+"=", session.EnvChild+"=", "OPENAI_BASE_URL=")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			out := stdout.String() + stderr.String()
			if code != row.code && row.check == nil {
				t.Errorf("exit %d, want %d", code, row.code)
			}
			for _, w := range row.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q", w)
				}
			}
			for _, re := range append(row.never, rawControl, canaryForms()) {
				if m := regexp.MustCompile(re).FindString(out); m != "" {
					t.Errorf("the output holds %q (matching %s)", m, re)
				}
			}
			if row.check != nil {
				row.check(t, code, stdout.String(), stderr.String())
			}
			if t.Failed() || os.Getenv("LLMSLA_HOSTILE_SHOW") != "" {
				t.Logf("stdout:\n%s\nstderr:\n%s", tailOf(stdout.String()), tailOf(stderr.String()))
			}
		})
	}
}

// hostileBudget is the address space a command may take beyond the child
// process's own at its start.
const hostileBudget = 512 << 20

// TestHostileChild is TestHostileInputs's child: it limits its address
// space, writes the row's files and exits with the command's exit code.
func TestHostileChild(t *testing.T) {
	name := os.Getenv("LLMSLA_HOSTILE_ROW")
	if name == "" {
		t.Skip("run by TestHostileInputs")
	}
	row := hostileRows[name]
	limit := uint64(vmSize() + hostileBudget)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, row.flags...), row.files(os.Getenv("LLMSLA_HOSTILE_DIR"))...)
	os.Exit(dispatch(append([]string{row.cmd}, args...), os.Stdout, os.Stderr))
}

// rawControl matches what a terminal acts on: control characters but
// newline and tab, DEL, C1 controls, line separators and bidi controls.
const rawControl = "[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"

// canaryForms matches the canary key as it is, in any case, in base64 and
// in hex: what a redactor must have replaced.
func canaryForms() string {
	forms := []string{"(?i)" + regexp.QuoteMeta(canary), "(?i)" + hex.EncodeToString([]byte(canary)), "(?i)canarykey"}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
		forms = append(forms, regexp.QuoteMeta(enc.EncodeToString([]byte(canary))))
	}
	return strings.Join(forms, "|")
}

// measured is a run of 20 successful requests of chat on the simulated
// endpoint as llmsla records them, one process (9cc509ef) sending them.
func measured() []sample.Sample {
	t0 := time.Date(2026, 11, 30, 15, 14, 55, 0, time.UTC)
	out := make([]sample.Sample, 20)
	for i := range out {
		ttft := time.Duration(20+i%3) * time.Millisecond
		out[i] = sample.Sample{Scenario: "chat", Endpoint: "sim", Model: "sim", Level: "concurrency=1", Run: "9cc509ef.1", Seq: i,
			ID: "chatcmpl-sim-" + strconv.Itoa(i), Start: t0.Add(time.Duration(i) * 50 * time.Millisecond), Offset: time.Duration(i) * 50 * time.Millisecond,
			TTFB: time.Millisecond, TTFT: ttft, TTFA: ttft, Total: ttft + 20*time.Millisecond, OutputTokens: 3, PromptTokens: 40,
			TokenSource: sample.TokensUsage, Chunks: 3, Finish: "stop", Status: 200, Content: "Positive"}
	}
	return out
}

// one is the run of measured with its third request changed by edit.
func one(edit func(*sample.Sample)) func(string) []string {
	return func(dir string) []string {
		ss := measured()
		edit(&ss[2])
		return []string{write(dir, "s.samples.jsonl", ss...)}
	}
}

// all is the run of measured with every request changed by edit.
func all(edit func(*sample.Sample)) func(string) []string {
	return func(dir string) []string {
		ss := measured()
		for i := range ss {
			edit(&ss[i])
		}
		return []string{write(dir, "s.samples.jsonl", ss...)}
	}
}

// coldError is the run of measured after a cold first request that failed
// with msg, which the verdict prints.
func coldError(msg string) func(string) []string {
	return func(dir string) []string {
		ss := measured()
		cold := ss[0]
		cold.Seq, cold.Cold, cold.Offset = 100, true, 0
		cold.TTFT, cold.TTFA, cold.Chunks, cold.OutputTokens, cold.TokenSource, cold.Content = 0, 0, 0, 0, "", ""
		cold.Fail(errors.New(msg))
		cold.ErrKind, cold.Finish, cold.Status = sample.KindServerError, string(sample.KindServerError), 500
		return []string{write(dir, "s.samples.jsonl", append([]sample.Sample{cold}, ss...)...)}
	}
}

func lines(ss []sample.Sample) []byte {
	var b bytes.Buffer
	for i := range ss {
		line, err := json.Marshal(&ss[i])
		if err != nil {
			panic(err)
		}
		b.Write(append(line, '\n'))
	}
	return b.Bytes()
}

func write(dir, name string, ss ...sample.Sample) string {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, lines(ss), 0o644); err != nil {
		panic(err)
	}
	return p
}

// fifo makes a named pipe in dir fed by feed from a goroutine: a file of
// any size that is never on disk.
func fifo(dir, name string, feed func(io.Writer)) string {
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		panic(err)
	}
	go func() {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			defer f.Close()
			feed(bufio.NewWriterSize(f, 1<<16)) // ends at EPIPE once the reader is gone
		}
	}()
	return p
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// noFormulas: the report's CSV parses, and no cell of text starts as a
// spreadsheet formula.
func noFormulas(t *testing.T, code int, stdout, _ string) {
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("CSV: %v, %d records", err, len(recs))
	}
	for _, rec := range recs[1:] {
		for _, cell := range rec[:3] {
			if cell != "" && strings.ContainsAny(cell[:1], "=+-@\t\r") {
				t.Errorf("cell %q starts a formula", cell)
			}
		}
	}
}

// overflowNotMeasured: with a price whose cost overflows, the JSON report
// is written with the cost not measured (null, saying why) — or the
// configuration refuses the price, naming it.
func overflowNotMeasured(t *testing.T, code int, stdout, stderr string) {
	switch code {
	case 0:
		var rep struct {
			Endpoints []struct {
				CostPer1k *float64 `json:"cost_per_1k"`
				CostNote  string   `json:"cost_note"`
			} `json:"endpoints"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Endpoints) != 1 {
			t.Fatalf("JSON: %v\n%s", err, stdout)
		}
		if e := rep.Endpoints[0]; e.CostPer1k != nil || !strings.Contains(e.CostNote, "the price overflows") {
			t.Errorf("cost %v, note %q: want null, saying the price overflows", e.CostPer1k, e.CostNote)
		}
	case 2:
		if !strings.Contains(stderr, "price") {
			t.Errorf("exit 2, and the error does not name the price: %s", stderr)
		}
	default:
		t.Errorf("exit %d, want 0 (the cost not measured) or 2 (the price refused)", code)
	}
}

func vmSize() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb << 10
		}
	}
	panic("no VmSize in /proc/self/status")
}

func tailOf(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}
