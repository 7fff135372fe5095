package report

import (
	"fmt"
	"io"

	"github.com/llmsla/llmsla/harness/objective"
)

// Conclusion is what a run's verdicts come to.
type Conclusion int

const (
	Met        Conclusion = iota // every objective met (or only search steps, or a shard's share)
	Violated                     // an objective the SLA judges was missed
	Unfinished                   // the run did not finish: what it measured is not judged
)

// Conclude says, under the verdict table, what the verdicts come to: a
// shard's share (share "1/3") is judged only with every shard's files; a
// run that did not finish is not judged, whatever its table shows; one
// whose figures cannot be taken for a pass (unjudged says why: a warm-up
// that mostly failed, a model that changed during the run) is no pass,
// though a violation it shows stands: it cannot be better than that.
func Conclude(w io.Writer, vs []objective.Verdict, share string, unfinished bool, unjudged string) Conclusion {
	switch {
	case share != "":
		fmt.Fprintf(w, "\nShard %s: its share of the run only. Judge the run with every shard's files: llmsla verdict DIR…\n", share)
		return Met
	case unfinished:
		fmt.Fprintln(w, "\nThe run did not finish: the table shows what it measured, which is not judged.")
		return Unfinished
	case objective.Failed(vs):
		fmt.Fprintln(w, "\nSLA violated.")
		return Violated
	case unjudged != "":
		fmt.Fprintf(w, "\n%s\n", unjudged)
		return Unfinished
	}
	for _, v := range vs {
		if v.Search() == "" {
			fmt.Fprintln(w, "\nAll SLAs met.")
			return Met
		}
	}
	fmt.Fprintln(w, "\nOnly search steps: held = every objective met at that level, over = not.")
	return Met
}
