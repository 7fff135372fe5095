package verdict

import (
	"bytes"

	"github.com/llmsla/llmsla/harness/atomicfile"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
)

// WriteSummary writes the verdicts of a run as JSON (report.Summary) to
// path, whole or not at all, with the exit code they came to.
func WriteSummary(path string, vs []objective.Verdict, run report.RunInfo, code int) error {
	var b bytes.Buffer
	if err := report.WriteSummary(&b, vs, run, code); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}
