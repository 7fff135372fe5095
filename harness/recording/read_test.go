package recording

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/llmsla/llmsla/harness/sample"
)

// header is what go test prints before its benchmark lines, and what
// llmsla bench adds before it.
const header = "commit: 1234abc\ndate: 2026-01-01T00:00:00Z\ngoos: linux\ngoarch: amd64\npkg: github.com/llmsla/llmsla/suites\nUnit ttft-p95-ms better=lower\n"

// recorded renders runs of two benchmarks, their values drawn from vals
// in turn: a file as llmsla bench writes it.
func recorded(runs int, vals ...float64) string {
	var b strings.Builder
	b.WriteString(header)
	k := 0
	for range runs {
		for _, ep := range []string{"prod", "canary"} {
			fmt.Fprintf(&b, "BenchmarkChat/endpoint=%s/concurrency=5-2\t20\t%g ttft-p95-ms\t%g out-tok/s\n", ep, vals[k%len(vals)], 400+vals[k%len(vals)])
			k++
		}
	}
	b.WriteString("PASS\nok  \tgithub.com/llmsla/llmsla/suites\t1.234s\n")
	return b.String()
}

// read reads texts as one comparison's sources and returns Read's error
// and the results it let through.
func read(t *testing.T, texts ...string) (int, error) {
	t.Helper()
	var srcs []Source
	for i, s := range texts {
		srcs = append(srcs, Stream(fmt.Sprintf("f%d.txt", i), strings.NewReader(s)))
	}
	results := 0
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A NaN once made benchmath loop forever: a failure must be a
		// failure, not a hang until go test's timeout.
		_, err = Read(srcs, nil, func(int, *benchfmt.Result) { results++ })
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Read did not return within 20s")
	}
	return results, err
}

// Each input is unusable, named by file and line, with what to do.
func TestReadRefuses(t *testing.T) {
	good := recorded(10, 100, 103, 99, 101, 104, 98, 102, 97, 105, 96, 95, 106, 94, 107, 93, 108, 92, 109, 91, 110)
	lines := strings.SplitAfter(good, "\n")
	first := lines[6] // 6 header lines
	with := func(old, new string) string {
		return strings.Replace(good, first, strings.Replace(first, old, new, 1), 1)
	}
	body := strings.Join(lines[:len(lines)-3], "") // without PASS, ok and ""
	cases := map[string]struct {
		text string
		want []string
	}{
		"NaN":               {with("100 ttft", "NaN ttft"), []string{"f0.txt:7:", "NaN ttft-p95-ms is not a number"}},
		"+Inf":              {with("100 ttft", "+Inf ttft"), []string{"f0.txt:7:", "+Inf ttft-p95-ms is not a number"}},
		"negative latency":  {with("100 ttft", "-12.5 ttft"), []string{"f0.txt:7:", "-12.5 ttft-p95-ms is negative"}},
		"negative rate":     {with("500 out", "-1 out"), []string{"f0.txt:7:", "-1 out-tok/s is negative"}},
		"percent above 100": {with("500 out-tok/s", "140 accuracy-%"), []string{"f0.txt:7:", "140 accuracy-% is above 100"}},
		"corrupt line":      {with("\t20\t", "\tx20\t"), []string{"f0.txt:7:", "corrupt benchmark lines"}},
		"cut short":         {body[:len(body)-4], []string{"f0.txt:" + strconv.Itoa(len(lines)-3) + ": the last line has no newline", "cut short"}},
		"no results":        {"goos: linux\n", []string{"f0.txt holds no benchmark results"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := read(t, tc.text)
			if !errors.Is(err, ErrUnusable) {
				t.Fatalf("err = %v, want ErrUnusable", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%v", w, err)
				}
			}
		})
	}
	if n, err := read(t, good, good); err != nil || n != 40 {
		t.Errorf("one file as both sides: %d results, err %v; want 40 and no error", n, err)
	}
}

// The samples of a recording are checked as its benchmark lines are.
func TestReadSamples(t *testing.T) {
	dir := t.TempDir()
	var ss []sample.Sample
	for r := range 3 {
		for i := range 5 {
			ss = append(ss, sample.Sample{Scenario: "chat", Endpoint: "sim", Run: fmt.Sprintf("r%d", r), Seq: i,
				Start: time.Date(2026, 1, 1, 0, 0, r*5+i, 0, time.UTC), TTFT: 100 * time.Millisecond, TTFA: 100 * time.Millisecond, Total: 200 * time.Millisecond, OutputTokens: 10, Finish: "stop"})
		}
	}
	write := func(name string, edit func(string) string) Source {
		t.Helper()
		p := filepath.Join(dir, name+".samples.jsonl")
		f, err := sample.Create(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ss {
			f.Write(&ss[i])
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		return File(filepath.Join(dir, name+".txt"))
	}
	same := func(s string) string { return s }
	cases := map[string]struct {
		src  Source
		want []string // substrings of the error; none: read
		n    int
	}{
		"good":           {src: write("good", same), n: 15},
		"no file":        {src: File(filepath.Join(dir, "none.txt"))},
		"cut short":      {src: write("cut", func(s string) string { return s[:len(s)-10] }), want: []string{"cut.samples.jsonl:", "cut short", "re-record"}},
		"empty":          {src: write("empty", func(string) string { return "" }), want: []string{"empty.samples.jsonl holds no samples"}},
		"negative time":  {src: write("negative", func(s string) string { return strings.Replace(s, `"ttft_ns":`, `"ttft_ns":-`, 1) }), want: []string{"negative.samples.jsonl:1:", "negative time"}},
		"recorded twice": {src: write("twice", func(s string) string { return s + s }), want: []string{"twice.samples.jsonl:16:", "request 0 of run r0 is recorded twice"}},
		"given, twice":   {src: Stream("mem", nil).WithSamples(append(ss[:3:3], ss[1])), want: []string{"mem (samples): request 1 of run r0 is recorded twice"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.src.ReadSamples()
			if len(tc.want) == 0 {
				if err != nil || len(got) != tc.n {
					t.Fatalf("%d samples, err %v; want %d and no error", len(got), err, tc.n)
				}
				return
			}
			if !errors.Is(err, ErrUnusable) {
				t.Fatalf("err = %v, want ErrUnusable", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
