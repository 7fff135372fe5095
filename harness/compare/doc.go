// Package compare describes recorded runs side by side, as benchstat does:
// [Tables] prints benchstat's tables (median ± 95% CI of every unit, the
// change against the first column with the Mann-Whitney p and n), with
// its -col, -row and -filter syntax; [Summary] one line per benchmark and
// key figure, the verdict table's columns, significant changes first.
//
// Both are descriptive: p is not corrected for the many cells, and
// nothing fails on a change. Deciding is harness/gate's job. Both read
// through harness/recording, so a file the gate refuses (a corrupt or cut
// line, runs recorded twice) is refused here too.
package compare
