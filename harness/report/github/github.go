// Package github writes what GitHub Actions reads beside a job's log:
// workflow commands, which the runner turns into annotations on the run
// and the pull request (::error, ::notice), and the step summary, the
// markdown a step appends to the file $GITHUB_STEP_SUMMARY names, shown on
// the run's page. llmsla writes a violated objective or a regression as an
// error annotation and its verdict table or gate report as the summary.
//
// The rules are GitHub's ("Workflow commands for GitHub Actions", and
// @actions/core's command.ts, which the documentation defers to): a
// command is one line on stdout, "::level title=T::message"; in the
// message %, CR and LF are written %25, %0D and %0A, and in a property
// (title) also : and , as %3A and %2C. GitHub shows at most 10
// annotations of each level per step, and refuses a step summary over
// 1 MiB.
package github

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmsla/llmsla/harness/escape"
)

// Actions reports whether this process runs in GitHub Actions, which sets
// GITHUB_ACTIONS=true in every step.
func Actions() bool { return os.Getenv("GITHUB_ACTIONS") == "true" }

// SummaryEnv names the file a step's summary is appended to.
const SummaryEnv = "GITHUB_STEP_SUMMARY"

// Levels of annotation.
const (
	Error   = "error"
	Warning = "warning"
	Notice  = "notice"
)

// MaxPerLevel is how many annotations of one level GitHub shows per step.
const MaxPerLevel = 10

// MaxSummary is the largest step summary GitHub accepts, in bytes.
const MaxSummary = 1 << 20

// Annotation is one workflow command.
type Annotation struct {
	Level, Title, Message string
}

// String is the command's line, escaped: what would act where the line
// is read (the job log renders ANSI; a bidi override reorders the
// annotation) shown as an escape (escape.Lines), then GitHub's own
// escapes.
func (a Annotation) String() string {
	title := ""
	if a.Title != "" {
		title = " title=" + property.Replace(escape.Lines(a.Title))
	}
	return "::" + a.Level + title + "::" + data.Replace(escape.Lines(a.Message))
}

var (
	data     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	property = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// Annotate writes the annotations one line each, in order, at most
// MaxPerLevel of each level: when a level has more, its last line shown
// says how many were left out and where they are.
func Annotate(w io.Writer, as []Annotation) error {
	total := map[string]int{}
	for _, a := range as {
		total[a.Level]++
	}
	shown := map[string]int{}
	var b strings.Builder
	for _, a := range as {
		n := shown[a.Level]
		switch {
		case n == MaxPerLevel:
			continue
		case n == MaxPerLevel-1 && total[a.Level] > MaxPerLevel:
			a = Annotation{Level: a.Level, Title: a.Title,
				Message: fmt.Sprintf("and %d more (GitHub shows %d per step): the job log and the JUnit file list every one", total[a.Level]-n, MaxPerLevel)}
		}
		shown[a.Level]++
		b.WriteString(a.String())
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Code is text as a fenced code block, shown as it is: its fence is longer
// than any run of backticks in text, so that nothing in it ends the block,
// and what would act in the page (a bidi override that reorders a line)
// is shown escaped (escape.Lines).
func Code(text string) string {
	text = escape.Lines(text)
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + strings.TrimSuffix(text, "\n") + "\n" + fence + "\n"
}

// AppendSummary appends markdown to the step summary file at path. What
// the file and md together hold beyond MaxSummary is cut at a line, with
// a line saying so: GitHub would refuse the whole summary otherwise.
func AppendSummary(path string, md []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("step summary: %w", err)
	}
	part := fit(md, MaxSummary-int(st.Size()))
	if _, err := f.Write(part); err != nil {
		f.Close()
		return fmt.Errorf("step summary %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("step summary %s: %w", path, err)
	}
	if len(part) == 0 && len(md) > 0 {
		return fmt.Errorf("step summary %s already holds %d bytes (GitHub takes %d): nothing appended; the job log has it", path, st.Size(), MaxSummary)
	}
	return nil
}

// cutNote ends a summary that was cut.
const cutNote = "\n*(cut here: GitHub takes 1 MiB of step summary; the job log has the rest)*\n"

// fit is md cut at its last newline that leaves room for cutNote within
// room bytes; md itself when it fits, nothing when nothing does.
func fit(md []byte, room int) []byte {
	if len(md) <= room {
		return md
	}
	keep := room - len(cutNote)
	if keep <= 0 {
		return nil
	}
	i := strings.LastIndexByte(string(md[:keep]), '\n')
	return append(append([]byte(nil), md[:i+1]...), cutNote...)
}
