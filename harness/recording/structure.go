package recording

import (
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"unicode"
	"unicode/utf8"
)

// A file that holds the same runs twice — `cat f f > g`, or a results file
// appended a copy of itself — would count its runs twice, and twice the
// runs make any difference look significant. It is found by the file's
// structure, never by its values: go test prints a header block of
// configuration lines (goos:, pkg:, and llmsla bench's commit:, date:)
// before its results, so a copy starts with a header block that is an
// earlier one line for line, followed by that block's results line for
// line. Values alone cannot tell a copy from honest runs: a discrete
// figure recorded ten times (max-rps 80 72 72 80 72 80 72 72 80 80 on a
// bisection's grid) repeats by nature. Two recordings appended to one file
// (go test >> f twice) have their own results, and llmsla bench's header
// its own date, so they are not a copy; a file without any header line
// has no structure to tell by, and is taken as it is.

// lines wraps a reader to learn the input's structure as benchfmt reads
// it: each line's hash and kind, and whether the last line was finished
// by a newline. A file cut by `head -c` or an interrupted copy ends
// mid-line, and its last value may still parse ("24.3" cut to "24"), so a
// missing newline is corruption whatever benchfmt makes of the line.
type lines struct {
	r      io.Reader
	hashes []uint64
	kinds  []lineKind
	// cur hashes the line being read; head holds its first bytes, which
	// say its kind.
	cur  uint64
	head []byte
	open bool // a line was started and not finished
}

type lineKind byte

const (
	otherLine  lineKind = iota
	configLine          // key: value
	resultLine          // Benchmark…
)

// headBytes is how much of a line its kind is read from.
const headBytes = 128

func (l *lines) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			l.endLine()
			continue
		}
		if !l.open {
			l.open, l.cur, l.head = true, fnvOffset, l.head[:0]
		}
		l.cur = (l.cur ^ uint64(c)) * fnvPrime
		if len(l.head) < headBytes {
			l.head = append(l.head, c)
		}
	}
	return n, err
}

// fnvOffset and fnvPrime are FNV-1a's, so that a line's hash is
// fnv.New64a's of its bytes.
var fnvOffset = fnv.New64a().Sum64()

const fnvPrime = 1099511628211

func (l *lines) endLine() {
	if !l.open {
		l.cur, l.head = fnvOffset, l.head[:0] // an empty line
	}
	l.hashes = append(l.hashes, l.cur)
	l.kinds = append(l.kinds, kindOf(l.head))
	l.open = false
}

// kindOf classifies a line by its first bytes as benchfmt does: a result
// starts with "Benchmark", a configuration line is "key: value" with a key
// that starts lower case and has no space or upper case letter.
func kindOf(head []byte) lineKind {
	if len(head) >= len("Benchmark") && string(head[:len("Benchmark")]) == "Benchmark" {
		return resultLine
	}
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		switch {
		case i == 0 && !unicode.IsLower(r), unicode.IsSpace(r), unicode.IsUpper(r):
			return otherLine
		case i > 0 && r == ':':
			return configLine
		}
		i += n
	}
	return otherLine
}

// cut returns the error for an input whose last line is unfinished.
func (l *lines) cut(name string) string {
	if !l.open {
		return ""
	}
	return fmt.Sprintf("%s:%d: the last line has no newline: the file was cut short (an interrupted run or copy); re-record it", name, len(l.hashes)+1)
}

// block is a header block: a run of configuration lines, from line start
// (0-based) to end.
type block struct{ start, end int }

// copied returns the error for a file one of whose header blocks starts a
// copy of an earlier part of the file (see above), or "".
func (l *lines) copied(name string) string {
	blocks := l.blocks()
	for j, b := range blocks {
		end := len(l.hashes)
		if j+1 < len(blocks) {
			end = blocks[j+1].start
		}
		for _, a := range blocks[:j] {
			if results, ok := l.repeats(a, b, end); ok {
				return fmt.Sprintf("%s:%d: the header of line %d starts again here, and the %d results after it repeat those of line %d on, line for line: the file holds the same runs twice (concatenated with itself?), which would double n; keep one copy",
					name, b.start+1, a.start+1, results, a.end+1)
			}
		}
	}
	return ""
}

// repeats reports whether the lines of b up to end are those from a's
// start on, line for line, with at least one result among them, and how
// many results.
func (l *lines) repeats(a, b block, end int) (int, bool) {
	n := end - b.start
	if b.end-b.start != a.end-a.start || a.start+n > b.start ||
		!slices.Equal(l.hashes[b.start:end], l.hashes[a.start:a.start+n]) {
		return 0, false
	}
	results := 0
	for _, k := range l.kinds[b.start:end] {
		if k == resultLine {
			results++
		}
	}
	return results, results > 0
}

// blocks lists the header blocks in file order.
func (l *lines) blocks() []block {
	var out []block
	for i := 0; i < len(l.kinds); i++ {
		if l.kinds[i] != configLine {
			continue
		}
		j := i
		for j < len(l.kinds) && l.kinds[j] == configLine {
			j++
		}
		out = append(out, block{i, j})
		i = j
	}
	return out
}
