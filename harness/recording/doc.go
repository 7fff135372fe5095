// Package recording reads recorded runs for the gate and for compare: the
// benchmark lines `go test -bench` wrote (benchfmt), and the samples file
// of every request beside them (results/X.txt ↔ results/X.samples.jsonl).
//
// It fails closed. What benchfmt or sample.Read would take without
// complaint but no honest comparison can rest on is an error wrapping
// [ErrUnusable], naming the file and line: a corrupt line, a NaN, infinite
// or negative value, a last line cut short, a file that holds the same
// runs twice (its header block and the results after it start over, line
// for line), a sample with a negative time, a request recorded twice.
//
// [Source] names a recording; [Read] streams the benchmark results of
// several through one benchfmt.Reader; [Source.ReadSamples] returns the
// samples.
package recording
