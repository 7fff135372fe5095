package provenance

import (
	"fmt"
	"strings"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// Agree checks the two records one run keeps of what it measured: the
// configuration lines of its results file (header, as recording.Config
// or recording.ReadHeader gathers them) and the first line of its samples
// file (record, sample.ReadProvenance). Every key of the record must be
// in the header with the same value, and a defining key the header holds
// (a model, digest, fixture or request parameter) must be in the record.
// A run whose two disagree was edited, or its files are not one run's:
// the error wraps recording.ErrUnusable and names the side (BASE, NEW),
// the files, each key and both values. Nothing is compared when either
// record is missing (a run from before llmsla recorded one, a results
// file without a benchmark line): Compare says what that leaves unknown.
func Agree(side, txt, samples string, header, record sample.Provenance) error {
	if header == nil || record == nil {
		return nil
	}
	var bad []string
	for _, key := range unionKeys(header, record) {
		h, r := header[key], record[key]
		if _, recorded := record[key]; h == r || !recorded && kindOf(key) == nil {
			continue // the results file's own lines: go test's, the test binary's
		}
		bad = append(bad, fmt.Sprintf("%s: %s in %s, %s in %s", key, orUnknown(h), txt, orUnknown(r), samples))
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %s and %s disagree on what the run measured (one was edited, or they are not one run's files; re-record the run):\n\t%s",
		recording.ErrUnusable, side, txt, samples, strings.Join(bad, "\n\t"))
}
