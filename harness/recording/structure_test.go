package recording

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// capacity is ten runs of a capacity search whose answer falls on the
// bisection's grid, as `llmsla bench -count 10` records it: max-rps 80 or
// 72, repeating by nature.
func capacity(date string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "commit: 1234abc\ndate: %s\ngoos: linux\ngoarch: amd64\npkg: github.com/llmsla/llmsla/suites\n", date)
	for _, rps := range []int{80, 72, 72, 80, 72, 80, 72, 72, 80, 80} {
		fmt.Fprintf(&b, "BenchmarkCapacity/endpoint=sim-2\t1\t%d max-rps\n", rps)
	}
	b.WriteString("PASS\nok  \tgithub.com/llmsla/llmsla/suites\t75.0s\n")
	return b.String()
}

// A copy is found by the file's structure, a header block starting over
// with the results after it, never by repeating values (issue 23, item
// 10: the capacity series above was refused as "concatenated with
// itself?").
func TestReadFindsCopiesByStructure(t *testing.T) {
	good := recorded(10, 100, 103, 99, 101, 104, 98, 102, 97, 105, 96, 95, 106, 94, 107, 93, 108, 92, 109, 91, 110)
	n := strings.Count(good, "\n")
	periodic := recorded(10, 100, 103, 99, 101, 104) // every benchmark's values repeat with period 5
	multi := good + strings.Replace(recorded(3, 7, 8, 9), "pkg: github.com/llmsla/llmsla/suites", "pkg: github.com/llmsla/llmsla/suites/more", 1)
	headless := "BenchmarkChat/endpoint=a-2 20 100 ttft-p95-ms\nBenchmarkChat/endpoint=a-2 20 101 ttft-p95-ms\n"
	cases := map[string]struct {
		text string
		want string // "": read without error
	}{
		"the capacity series":   {text: capacity("2026-01-01T00:00:00Z")},
		"periodic values":       {text: periodic},
		"capacity, twice":       {text: capacity("2026-01-01T00:00:00Z") + capacity("2026-01-01T00:00:00Z"), want: "f0.txt:18: the header of line 1 starts again here, and the 10 results after it repeat those of line 6 on"},
		"concatenated":          {text: good + good, want: "f0.txt:" + strconv.Itoa(n+1) + ": the header of line 1 starts again here, and the 20 results after it repeat"},
		"periodic, twice":       {text: periodic + periodic, want: "concatenated with itself?"},
		"a copy after another":  {text: good + capacity("2026-01-02T00:00:00Z") + good, want: "the header of line 1 starts again here"},
		"two packages, twice":   {text: multi + multi, want: "f0.txt:" + strconv.Itoa(strings.Count(multi, "\n")+1) + ": the header of line 1 starts again here"},
		"two recordings":        {text: capacity("2026-01-01T00:00:00Z") + capacity("2026-01-02T00:00:00Z")},
		"go test appended":      {text: good + strings.Replace(good, "\t100 ttft", "\t100.5 ttft", 1)},
		"no header, same lines": {text: headless + headless},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := read(t, tc.text)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "double n") {
				t.Errorf("err = %v, want ErrUnusable saying %q and that it would double n", err, tc.want)
			}
		})
	}
}
