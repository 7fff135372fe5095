package gateci

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/gate"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/report/github"
	"github.com/llmsla/llmsla/harness/report/junit"
	"github.com/llmsla/llmsla/harness/secret"
)

// The commands' exit codes the outputs tell apart: an objective violated
// or a regression found, and a run broken or input that cannot be judged.
const (
	exitViolated = 1
	exitBroken   = 2
)

// Outputs are what bench, verdict and gate write for CI beside their
// log: the JUnit file -junit names, the GitHub step summary when
// $GITHUB_STEP_SUMMARY names one, and annotations on stdout under GitHub
// Actions (GITHUB_ACTIONS=true). A command calls Start once its flags
// parse, tells it what it judged (Judged, Gated) and calls Finish with
// its exit code on every way out, so that a broken run writes its JUnit
// file and summary too, saying why it is broken. Everything it writes is
// redacted here: it writes after the command's own redactor has closed.
type Outputs struct {
	// JUnit is the JUnit file to write ("": none).
	JUnit string
	// Secrets are the secrets to redact when nothing judged said them
	// (a command that failed before it loaded its configuration).
	Secrets func() *secret.Set

	command        string // "bench", "verdict", "gate"
	summary        string // $GITHUB_STEP_SUMMARY
	annotate       bool
	stdout, stderr io.Writer // the command's, unredacted
	errs           *tail
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

// Start readies the outputs the flags and the environment ask for, and
// returns stderr to write through, so that a broken run's messages can be
// said in them.
func (c *Outputs) Start(command string, stdout, stderr io.Writer) io.Writer {
	c.command, c.stdout, c.stderr = command, stdout, stderr
	c.summary, c.annotate = os.Getenv(github.SummaryEnv), github.Actions()
	if !c.on() {
		return stderr
	}
	c.errs = &tail{}
	return io.MultiWriter(stderr, c.errs)
}

func (c *Outputs) on() bool {
	return c != nil && c.stdout != nil && (c.JUnit != "" || c.summary != "" || c.annotate)
}

// Judged records what a verdict judged: the verdicts, what the run was
// (commit, configuration, endpoints with their models and hosts), the
// share of a shard's own bench ("1/2", "" for a whole run), and the
// secrets of its configuration.
func (c *Outputs) Judged(info report.RunInfo, vs []objective.Verdict, share string, sec *secret.Set) {
	if c.on() {
		c.sec, c.run = sec, &judgedRun{info: info, vs: vs, share: share}
	}
}

// Gated records the gate's report.
func (c *Outputs) Gated(rep *gate.Report) {
	if c.on() {
		c.report = rep
	}
}

// Finish writes the outputs for a command that exits with code, and
// returns the code to exit with: exit 2 when the JUnit file, which CI
// reads for the result, could not be written.
func (c *Outputs) Finish(code int) int {
	if !c.on() {
		return code
	}
	if c.sec == nil {
		c.sec = secret.New()
		if c.Secrets != nil {
			c.sec = c.Secrets()
		}
	}
	headline := c.headline(code)
	if c.JUnit != "" {
		var buf bytes.Buffer
		err := junit.Write(&buf, junit.Suites{Name: "llmsla", Suites: []junit.Suite{c.suite(code, headline)}}, c.sec.Redact)
		if err == nil {
			err = atomicfile.Write(c.JUnit, c.sec.RedactBytes(buf.Bytes()))
		}
		if err != nil {
			fmt.Fprintln(c.stderr, c.sec.Redact(fmt.Sprintf("llmsla %s: -junit %s: %v", c.command, c.JUnit, err)))
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

// headline is the result in one line: the summary's title, the notice,
// and a broken run's JUnit error, which says why it is broken — the
// command's last message with the lines that explain it.
func (c *Outputs) headline(code int) string {
	what := "llmsla " + c.command
	switch {
	case code == exitBroken:
		why := c.errs.cause()
		if why == "" {
			why = "the run is broken or could not be judged (the job log says why)"
		}
		return fmt.Sprintf("%s: exit 2, %s", what, why)
	case c.report != nil:
		return c.report.Headline()
	case c.run == nil:
		return fmt.Sprintf("%s: exit %d, nothing was judged", what, code)
	case c.run.share != "":
		return fmt.Sprintf("%s: shard %s recorded its share of %s; the run is judged when the shards' files are merged", what, c.run.share, levels(len(c.run.vs)))
	}
	failed, violated := 0, 0
	for _, v := range c.run.vs {
		if !v.OK() && v.Search() == "" {
			failed++
			violated += len(v.Violations)
		}
	}
	if code == exitViolated {
		return fmt.Sprintf("%s: exit 1, %s violated in %d of %s", what, report.Plural(violated, "objective", "objectives"), failed, levels(len(c.run.vs)))
	}
	return fmt.Sprintf("%s: exit 0, every objective met (%s)", what, levels(len(c.run.vs)))
}

func levels(n int) string { return report.Plural(n, "level", "levels") }

// suite is the JUnit suite of the result: a case per level judged, or per
// gated figure, and for a broken run one error case saying why.
func (c *Outputs) suite(code int, headline string) junit.Suite {
	s := junit.Suite{Name: "llmsla " + c.command}
	switch {
	case c.report != nil:
		s.Cases, s.Output = JUnitCases(c.report), JUnitOutput(c.report)
		s.Properties = []junit.Property{{Name: "base", Value: c.report.Base}, {Name: "base.commit", Value: commit(c.report.Base)},
			{Name: "new", Value: c.report.New}, {Name: "new.commit", Value: commit(c.report.New)}}
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

// commit is the commit a gated side's results files recorded.
func commit(side string) string {
	if c := recording.Headers([]string{side})["commit"]; c != "" {
		return c
	}
	return "not recorded"
}

// markdown is the step summary: the headline, what the run was, the
// verdict table or the gate's report, and for a broken run what it said.
func (c *Outputs) markdown(code int, headline string) []byte {
	var b bytes.Buffer
	if c.report != nil {
		WriteMarkdown(&b, c.report)
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
func (c *Outputs) annotations(code int, headline string) []github.Annotation {
	var as []github.Annotation
	switch {
	case c.report != nil:
		as = Annotations(c.report)
	case c.run != nil && c.run.share == "":
		as = report.VerdictAnnotations(c.run.vs)
	}
	level := github.Notice
	if code == exitBroken {
		level = github.Error
	}
	return append(as, github.Annotation{Level: level, Title: "llmsla " + c.command, Message: headline})
}
