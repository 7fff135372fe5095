package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/sample"
)

// judgeConfig is an SLA file measuring the simulator's summary at
// concurrency 1, judged by a simulated judge of spec.
func judgeConfig(judgeSpec string) string {
	return fmt.Sprintf(`endpoints:
  sim: {sim: "ttft=1ms,tpot=0s,jitter=0"}
  grader: {sim: %q, price: {input_per_mtok: 1, output_per_mtok: 2, currency: USD}}
judge: {endpoint: grader}
scenarios:
  summary: {concurrency: [1], warmup: 0}
`, judgeSpec)
}

// judgeBench runs llmsla bench on the summary scenario into dir.
func judgeBench(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"-pkg", suites, "-bench", "Summary", "-out", dir, "-count", "1", "-n", "22", "-q"}, args...)
	code := runBench(args, &out, &errOut)
	return code, out.String() + errOut.String()
}

// judgeRequests counts the judge's requests of the latest run in dir,
// from the record beside its samples.
func judgeRequests(t *testing.T, dir string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.judge.jsonl"))
	if len(files) == 0 {
		return 0
	}
	latest := files[len(files)-1]
	ss, err := sample.Read(latest)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return len(ss)
}

// TestBenchJudgeFailsClosed: a judge that answers prose fails every answer
// it judged, each with the reason, and the bench exits 1 on judge pass
// 0% < 90%, its own requests reported apart, with their cost.
func TestBenchJudgeFailsClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	useConfig(t, judgeConfig("ttft=0s,tpot=0s,judge,judge_prose=1"))
	dir := t.TempDir()
	code, out := judgeBench(t, dir)
	if code != 1 {
		t.Fatalf("exit = %d, want 1\n%s", code, out)
	}
	contains(t, "output", out, []string{"judge pass 0% < 90%", "judge: no verdict: judge answer not JSON", "SLA violated.",
		"judge grader: 22 answers judged", "verdicts, 11 failed (11 not JSON)", " output tokens; cost 0.00", " USD"})
	samples, err := sample.Read(filepath.Join(dir, "latest.samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, s := range samples {
		if !s.Measured() {
			continue
		}
		judged++
		if q := s.Quality; q == nil || !q.JudgeChecked || q.JudgePass || !strings.HasPrefix(q.JudgeError, "judge answer not JSON") {
			t.Errorf("sample %d (case %s): %+v, want judged and failed: not JSON", s.Seq, s.Case, s.Quality)
		}
	}
	if judged != 22 {
		t.Errorf("%d measured samples, want 22", judged)
	}
}

// TestBenchJudgeCache: the same bench again sends the judge nothing (its
// verdicts are cached beside the SLA file), and -rejudge sends every
// judgment again.
func TestBenchJudgeCache(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	cfg := useConfig(t, judgeConfig("ttft=0s,tpot=0s,judge"))
	dir := t.TempDir()
	code, out := judgeBench(t, dir)
	first := judgeRequests(t, dir)
	if code != 0 || first != 11 {
		t.Fatalf("exit = %d, %d judge requests, want 0 and 11 (one per case)\n%s", code, first, out)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), config.DefaultJudgeCache)); err != nil {
		t.Errorf("no cache beside the SLA file: %v", err)
	}
	dir2 := t.TempDir()
	code, out = judgeBench(t, dir2)
	if n := judgeRequests(t, dir2); code != 0 || n != 0 {
		t.Fatalf("rerun: exit = %d, %d judge requests, want 0 and 0\n%s", code, n, out)
	}
	contains(t, "rerun output", out, []string{"judge grader: 22 answers judged, 0 requests sent"})
	dir3 := t.TempDir()
	code, out = judgeBench(t, dir3, "-rejudge")
	if n := judgeRequests(t, dir3); code != 0 || n != first {
		t.Fatalf("-rejudge: exit = %d, %d judge requests, want 0 and %d\n%s", code, n, first, out)
	}
}

// calibrationLabels writes n labelled answers, half the reference itself
// (labelled pass), half unrelated words (labelled fail), each question
// its own, and returns the file.
func calibrationLabels(t *testing.T, n int) string {
	t.Helper()
	words := strings.Fields("harbor meadow lantern copper violet thunder glacier pepper orchard saddle marble falcon " +
		"ribbon canyon cobalt walnut pebble comet tundra quartz willow ember basalt cedar juniper plume")
	rng := rand.New(rand.NewPCG(4, 2))
	sentence := func(k int) string {
		out := make([]string, k)
		for i := range out {
			out[i] = words[rng.IntN(len(words))] + strconv.Itoa(rng.IntN(1000))
		}
		return strings.Join(out, " ")
	}
	var b strings.Builder
	for i := range n {
		ref := sentence(12)
		answer, label := ref, "pass"
		if i%2 == 1 {
			answer, label = sentence(12), "fail"
		}
		line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("l%04d", i), "question": fmt.Sprintf("Summarise text %d.", i),
			"reference": ref, "answer": answer, "label": label})
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var kappaRE = regexp.MustCompile(`grader vs labels: (\d+) answers, accuracy [0-9.]+%, kappa (-?[0-9.]+)`)

// TestCalibrateKnownAgreement: a simulated judge that would agree with
// every label but flips each verdict with probability p (by a hash of its
// prompt) has, on labels half pass, a kappa of 1 − 2p; llmsla judge
// calibrate reports it within 0.05, and judge_agreement_min holds the
// judge to it: exit 0 below the kappa, 1 above.
func TestCalibrateKnownAgreement(t *testing.T) {
	labels := calibrationLabels(t, 600)
	for _, p := range []float64{0, 0.1, 0.25} {
		t.Run(fmt.Sprintf("noise=%g", p), func(t *testing.T) {
			useConfig(t, fmt.Sprintf("endpoints:\n  sim: {sim: \"\"}\n  grader: {sim: \"ttft=0s,tpot=0s,judge,judge_noise=%g\"}\njudge: {endpoint: grader, cache: off}\n", p))
			want := 1 - 2*p
			var out, errOut bytes.Buffer
			code := runJudge([]string{"calibrate", "-labels", labels, "-rubric", "../../fixtures/rubrics/summary.yaml", "-agreement-min", strconv.FormatFloat(want-0.1, 'f', 2, 64)}, &out, &errOut)
			t.Logf("%s%s", &out, &errOut)
			if code != 0 {
				t.Fatalf("exit = %d, want 0 (kappa %.2f ≥ %.2f)", code, want, want-0.1)
			}
			m := kappaRE.FindStringSubmatch(out.String())
			if m == nil || m[1] != "600" {
				t.Fatalf("no kappa over 600 answers in the output")
			}
			got, _ := strconv.ParseFloat(m[2], 64)
			if math.Abs(got-want) > 0.05 {
				t.Errorf("kappa %.3f, want %.2f ± 0.05 (noise %g)", got, want, p)
			}
			contains(t, "output", out.String(), []string{"labels \\ grader", "no verdict", "length bias:", "PASS: judge_agreement_min"})
			out.Reset()
			if code := runJudge([]string{"calibrate", "-labels", labels, "-rubric", "../../fixtures/rubrics/summary.yaml", "-agreement-min", strconv.FormatFloat(min(want+0.1, 1), 'f', 2, 64)}, &out, &errOut); code != 1 && p > 0 {
				t.Errorf("-agreement-min above the kappa: exit = %d, want 1\n%s", code, &out)
			}
		})
	}
}

// TestCalibrateBadInput: a label outside the scale, a rubric without
// criteria and a configuration without a judge are each an error naming
// the file and line, exit 2, before any judge is asked.
func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "../../fixtures/rubrics/summary.yaml"
	badLabel := write("bad.jsonl", `{"id": "a", "question": "q", "reference": "r", "answer": "x", "label": 7}`+"\n")
	noCriteria := write("empty.yaml", "name: x\nscale: pass_fail\n")
	withJudge := "endpoints:\n  sim: {sim: \"\"}\n  grader: {sim: \"judge\"}\njudge: {endpoint: grader, cache: off}\n"
	cases := map[string]struct {
		config, labels, rubric string
		want                   string
	}{
		"label outside the scale": {withJudge, badLabel, good, badLabel + ":1: label: 7 is outside the rubric's scale 1-5 (allowed: pass, fail, or a score from 1 to 5)"},
		"rubric without criteria": {withJudge, badLabel, noCriteria, noCriteria + ":1: criteria: missing"},
		"no judge":                {"endpoints:\n  sim: {sim: \"\"}\n", "../../fixtures/rubrics/summary-labels.jsonl", good, "has no judge: block"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			useConfig(t, tc.config)
			var out, errOut bytes.Buffer
			if code := runJudge([]string{"calibrate", "-labels", tc.labels, "-rubric", tc.rubric}, &out, &errOut); code != 2 {
				t.Fatalf("exit = %d, want 2\n%s%s", code, &out, &errOut)
			}
			contains(t, "stderr", errOut.String(), []string{tc.want})
		})
	}
}
