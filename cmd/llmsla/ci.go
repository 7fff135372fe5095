package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/gate/gateci"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/report/junit"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
)

// ciOutputs are what bench, verdict and gate write for CI beside their
// log: the JUnit file -junit names, the GitHub step summary when
// $GITHUB_STEP_SUMMARY names one, and annotations on stdout under GitHub
// Actions (GITHUB_ACTIONS=true). A command calls start once its flags
// parse, tells it what it judged (judged, gated) and calls finish with its
// exit code on every way out, so that a broken run writes its JUnit file
// and summary too, saying why it is broken. Everything it writes is
// redacted here: it writes after the command's own redactor has closed.
type ciOutputs struct {
	junit          string // -junit FILE
	command        string // "bench", "verdict", "gate"
	summary        string // $GITHUB_STEP_SUMMARY
	annotate       bool
	stdout, stderr io.Writer // the command's, unredacted
	errs           *errTail
	sec            *secret.Set

	run    *judgedRun   // what bench or verdict judged
	report *gate.Report // what gate found
}

// judgedRun is what a verdict judged, and of which run.
type judgedRun struct {
	info  report.RunInfo
	vs    []objective.Verdict
	share string // "1/2" for a shard's own bench
}

// ciFlags declares -junit on fs.
func ciFlags(fs *flag.FlagSet) *ciOutputs {
	c := &ciOutputs{}
	fs.StringVar(&c.junit, "junit", "", "also write the result as JUnit XML to `FILE`, for CI's test reports (written whatever the exit code)")
	return c
}

// start readies the outputs the flags and the environment ask for, and
// returns stderr to write through, so that a broken run's messages can be
// said in them.
func (c *ciOutputs) start(command string, stdout, stderr io.Writer) io.Writer {
	c.command, c.stdout, c.stderr = command, stdout, stderr
	c.summary, c.annotate = os.Getenv(github.SummaryEnv), github.Actions()
	if !c.on() {
		return stderr
	}
	c.errs = &errTail{}
	return io.MultiWriter(stderr, c.errs)
}

func (c *ciOutputs) on() bool {
	return c != nil && c.stdout != nil && (c.junit != "" || c.summary != "" || c.annotate)
}

// judged records what a verdict judged: the verdicts, and what the run
// was (commit, configuration, endpoints with their models and hosts).
func (c *ciOutputs) judged(cfg *config.Config, paths []string, samples []sample.Sample, vs []objective.Verdict, opts verdictOptions) {
	if !c.on() {
		return
	}
	c.sec = secret.New(cfg.Secrets()...)
	c.run = &judgedRun{info: runInfo(cfg, paths, samples), vs: vs}
	if opts.shard.On() {
		c.run.share = opts.shard.String()
	}
}

// gated records the gate's report.
func (c *ciOutputs) gated(rep *gate.Report) {
	if c.on() {
		c.report = rep
	}
}

// finish writes the outputs for a command that exits with code, and
// returns the code to exit with: exit 2 when the JUnit file, which CI
// reads for the result, could not be written.
func (c *ciOutputs) finish(code int) int {
	if !c.on() {
		return code
	}
	if c.sec == nil {
		c.sec = envSecrets()
	}
	headline := c.headline(code)
	if c.junit != "" {
		var buf bytes.Buffer
		err := junit.Write(&buf, junit.Suites{Name: "llmsla", Suites: []junit.Suite{c.suite(code, headline)}}, c.sec.Redact)
		if err == nil {
			err = atomicfile.Write(c.junit, c.sec.RedactBytes(buf.Bytes()))
		}
		if err != nil {
			fmt.Fprintln(c.stderr, c.sec.Redact(fmt.Sprintf("llmsla %s: -junit %s: %v", c.command, c.junit, err)))
			code = exitBroken
		}
	}
	if c.summary != "" {
		if err := github.AppendSummary(c.summary, c.sec.RedactBytes(c.markdown(code, headline))); err != nil {
			fmt.Fprintln(c.stderr, c.sec.Redact(fmt.Sprintf("llmsla %s: warning: %v", c.command, err)))
		}
	}
	if c.annotate {
		var buf bytes.Buffer
		github.Annotate(&buf, c.annotations(code, headline))
		c.stdout.Write(c.sec.RedactBytes(buf.Bytes()))
	}
	return code
}

// headline is the result in one line: the summary's title, the notice.
func (c *ciOutputs) headline(code int) string {
	what := "llmsla " + c.command
	switch {
	case code == exitBroken:
		why := c.errs.last()
		if why == "" {
			why = "the run is broken or could not be judged (the job log says why)"
		}
		return fmt.Sprintf("%s: exit 2, %s", what, why)
	case c.report != nil:
		return c.report.Headline()
	case c.run == nil:
		return fmt.Sprintf("%s: exit %d, nothing was judged", what, code)
	case c.run.share != "":
		return fmt.Sprintf("%s: shard %s recorded its share of %d levels; the run is judged when the shards' files are merged", what, c.run.share, len(c.run.vs))
	}
	failed, violated := 0, 0
	for _, v := range c.run.vs {
		if !v.OK() && v.Search() == "" {
			failed++
			violated += len(v.Violations)
		}
	}
	if code == exitViolated {
		return fmt.Sprintf("%s: exit 1, %d objectives violated in %d of %d levels", what, violated, failed, len(c.run.vs))
	}
	return fmt.Sprintf("%s: exit 0, every objective met (%d levels)", what, len(c.run.vs))
}

// suite is the JUnit suite of the result: a case per level judged, or per
// gated figure, and for a broken run one error case saying why.
func (c *ciOutputs) suite(code int, headline string) junit.Suite {
	s := junit.Suite{Name: "llmsla " + c.command}
	switch {
	case c.report != nil:
		s.Cases, s.Output = gateci.JUnitCases(c.report), gateci.JUnitOutput(c.report)
		s.Properties = []junit.Property{{Name: "base", Value: c.report.Base}, {Name: "base.commit", Value: orNone(recordedHeader([]string{c.report.Base}, "commit"))},
			{Name: "new", Value: c.report.New}, {Name: "new.commit", Value: orNone(recordedHeader([]string{c.report.New}, "commit"))}}
	case c.run != nil:
		info := c.run.info
		s.Timestamp, s.Time, s.Properties = info.Start, info.End.Sub(info.Start), info.Properties()
		s.Cases = report.VerdictCases(c.run.vs, c.run.share)
	}
	switch {
	case code == exitBroken:
		s.Cases = append(s.Cases, junit.Case{Classname: "llmsla/" + c.command, Name: "run",
			Errors: []junit.Problem{{Message: headline, Type: "broken", Detail: c.errs.text()}}})
	case len(s.Cases) == 0:
		s.Cases = []junit.Case{{Classname: "llmsla/" + c.command, Name: "run", Skipped: &junit.Problem{Message: headline, Type: "nothing-judged"}}}
	}
	return s
}

// markdown is the step summary: the headline, what the run was, the
// verdict table or the gate's report, and for a broken run what it said.
func (c *ciOutputs) markdown(code int, headline string) []byte {
	var b bytes.Buffer
	if c.report != nil {
		gateci.WriteMarkdown(&b, c.report)
	} else {
		fmt.Fprintf(&b, "### %s\n\n", escape.Markdown(headline))
	}
	if c.run != nil {
		info := c.run.info
		var eps []string
		for _, e := range info.Endpoints {
			eps = append(eps, escape.Markdown(e.String()))
		}
		fmt.Fprintf(&b, "commit %s · config %s · started %s · %s\n\n", escape.Markdown(info.CommitText()), escape.Markdown(info.Config),
			info.Start.UTC().Format("2006-01-02 15:04:05 UTC"), strings.Join(eps, "; "))
		report.VerdictsMarkdown(&b, c.run.vs)
	}
	if code == exitBroken && c.errs.text() != "" {
		fmt.Fprintf(&b, "\n%s", github.Code(c.errs.text()))
	}
	b.WriteString("\n")
	return b.Bytes()
}

// annotations are an error per violated objective or regression, and the
// headline: a notice, or an error when the run is broken.
func (c *ciOutputs) annotations(code int, headline string) []github.Annotation {
	var as []github.Annotation
	switch {
	case c.report != nil:
		as = gateci.Annotations(c.report)
	case c.run != nil && c.run.share == "":
		as = report.VerdictAnnotations(c.run.vs)
	}
	level := github.Notice
	if code == exitBroken {
		level = github.Error
	}
	return append(as, github.Annotation{Level: level, Title: "llmsla " + c.command, Message: headline})
}

// runInfo is what the samples read from paths were a run of: its commit
// and each endpoint's host, as the results files beside them recorded
// them (the configuration may have changed since), the configuration the
// verdict used, each endpoint's models.
func runInfo(cfg *config.Config, paths []string, samples []sample.Sample) report.RunInfo {
	host := func(name string) string { return recordedHeader(paths, "endpoint."+sample.NameValue(name)+".host") }
	info := report.NewRunInfo(samples, host)
	info.Commit, info.Config = recordedHeader(paths, "commit"), cfg.Source
	return info
}

// envSecrets are the secrets of the configuration a command would load,
// for a command that failed before it loaded one.
func envSecrets() *secret.Set {
	if cfg, err := config.LoadWithoutKeys(); err == nil {
		return secret.New(cfg.Secrets()...)
	}
	return secret.New(os.Getenv("OPENAI_API_KEY"))
}

// recordedHeader is the value the recordings of paths give key in their header
// ("commit: abc123", "endpoint.prod.host: api.openai.com"), read from
// each results file (X.txt, or the X.txt beside X.samples.jsonl; in a
// directory, beside each samples file): the distinct values joined, ""
// when none says.
func recordedHeader(paths []string, key string) string {
	var values []string
	for _, p := range paths {
		for _, txt := range resultsFiles(p) {
			if v := headerValue(txt, key); v != "" && !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
	}
	return strings.Join(values, ", ")
}

// resultsFiles are the results files a path given to a command stands for.
func resultsFiles(p string) []string {
	beside := func(f string) string { return strings.TrimSuffix(f, ".samples.jsonl") + ".txt" }
	if !isDir(p) {
		return []string{beside(p)}
	}
	var out []string
	filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(f, ".samples.jsonl") && d.Name() != "latest.samples.jsonl" {
			out = append(out, beside(f))
		}
		return nil
	})
	return out
}

// headerValue is the value of "key: value" in a results file's
// configuration header (the lines before its first benchmark, read
// bounded), "" when it has none.
func headerValue(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 256<<10))
	for i := 0; i < 1000 && sc.Scan() && !strings.HasPrefix(sc.Text(), "Benchmark"); i++ {
		if v, ok := strings.CutPrefix(sc.Text(), key+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// errTail keeps the last lines a command wrote on stderr, progress lines
// aside, bounded: what a broken run's JUnit error and summary say.
type errTail struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
}

const (
	tailLines   = 20
	tailLineMax = 500
)

func (t *errTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4*tailLineMax {
		t.partial = t.partial[len(t.partial)-4*tailLineMax:]
	}
	return len(p), nil
}

func (t *errTail) add(line string) {
	if strings.HasPrefix(line, "progress: ") || strings.Contains(line, "\x1b[K") || strings.TrimSpace(line) == "" {
		return
	}
	if len(line) > tailLineMax {
		line = line[:tailLineMax] + "…"
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

// last is the last of the command's own messages ("llmsla: …").
func (t *errTail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(t.lines[i], "llmsla") {
			return t.lines[i]
		}
	}
	return ""
}

// text is the lines kept.
func (t *errTail) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
