package docs

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, from this package's directory (go test runs
// there).
const root = ".."

// TestLinksResolve: every relative link and image in the repository's
// Markdown (README.md, docs/, fixtures/, …) names a file or directory that
// exists inside the repository, and every #anchor names a heading of the
// Markdown file it points into, by GitHub's rules. A moved section or a
// renamed file then fails here instead of in a reader's browser.
func TestLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	if !slices.Contains(files, "README.md") || !slices.Contains(files, "docs/configuration.md") {
		t.Fatalf("found %v: the walk missed README.md or docs/", files)
	}
	anchors := map[string][]string{}
	checked := 0
	for _, file := range files {
		text := read(t, file)
		for _, l := range links(text) {
			if err := resolve(file, l.target, anchors); err != nil {
				t.Errorf("%s:%d: link %q: %v", file, l.line, l.target, err)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("checked %d links: the README and docs hold more, so the link reader is broken", checked)
	}
}

// markdownFiles lists the repository's .md files, slash-separated and
// relative to root, leaving out dot directories and recorded results.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "results") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func read(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// resolve checks one link target of file. anchors caches the heading
// anchors of each Markdown file read.
func resolve(file, target string, anchors map[string][]string) error {
	if u, err := url.Parse(target); err == nil && u.Scheme != "" {
		return nil // absolute (https:, mailto:): not this test's to fetch
	}
	path, anchor, _ := strings.Cut(target, "#")
	path, err := url.PathUnescape(path)
	if err != nil {
		return err
	}
	dest := file
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return fmt.Errorf("absolute path: write it relative to %s", file)
		}
		dest = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return fmt.Errorf("leaves the repository")
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
			return fmt.Errorf("no such file %s", dest)
		}
	}
	if anchor == "" {
		return nil
	}
	if !strings.HasSuffix(dest, ".md") {
		return fmt.Errorf("#%s on %s, which is not Markdown", anchor, dest)
	}
	if _, ok := anchors[dest]; !ok {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dest)))
		if err != nil {
			return err
		}
		anchors[dest] = headingAnchors(string(b))
	}
	if !slices.Contains(anchors[dest], anchor) {
		return fmt.Errorf("%s has no heading with anchor #%s (it has: #%s)", dest, anchor, strings.Join(anchors[dest], ", #"))
	}
	return nil
}

type link struct {
	line   int
	target string
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	heading    = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
)

// links returns the link targets of a Markdown text: inline links and
// images, and reference definitions, outside code blocks and code spans.
func links(text string) []link {
	var out []link
	for i, line := range prose(text) {
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{i + 1, m[1]})
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			out = append(out, link{i + 1, m[1]})
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives the ATX headings of a
// Markdown text, in order: the second heading with the same text gets
// "-1", the third "-2".
func headingAnchors(text string) []string {
	var out []string
	seen := map[string]int{}
	lines := strings.Split(text, "\n")
	for i, line := range prose(text) {
		if heading.FindStringSubmatch(line) == nil {
			continue
		}
		// The heading as written: its code spans count ("`sla.yaml`" is
		// "slayaml"), only their backticks drop.
		m := heading.FindStringSubmatch(lines[i])
		a := slug(m[2])
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

var (
	linkMarkup = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
)

// slug is GitHub's anchor for a heading's text: the text as rendered
// (link targets and tags dropped), lower-cased, every character that is
// not a letter, a digit, a mark, "-", "_" or a space dropped, and each
// space turned into "-".
func slug(text string) string {
	text = linkMarkup.ReplaceAllString(text, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// prose returns the lines of a Markdown text with fenced code blocks
// blanked and code spans replaced by spaces, so that neither an example
// nor a link inside one is read as a link or a heading.
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if fence != "" {
			if indent <= 3 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" ") == "" {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if f := fenceOpener(trimmed); f != "" && indent <= 3 {
			fence = f
			lines[i] = ""
			continue
		}
		lines[i] = blankCodeSpans(line)
	}
	return lines
}

// fenceOpener is the run of ``` or ~~~ that opens a fenced code block on
// this line, or "". A backtick fence's info string holds no backtick
// (CommonMark), so "```` ```json ```` fence" is a code span, not a fence.
func fenceOpener(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			if c == "`" && strings.Contains(line[n:], "`") {
				return ""
			}
			return line[:n]
		}
	}
	return ""
}

// blankCodeSpans replaces each code span of a line (a run of n backticks
// up to the next run of exactly n) by spaces. An unclosed run is literal.
func blankCodeSpans(line string) string {
	b := []byte(line)
	for i := 0; i < len(b); {
		n := backticks(b, i)
		if n == 0 {
			i++
			continue
		}
		end := closingRun(b, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < end+n; j++ {
			b[j] = ' '
		}
		i = end + n
	}
	return string(b)
}

// closingRun is the index of the next run of exactly n backticks in b from
// i, or -1.
func closingRun(b []byte, i, n int) int {
	for i < len(b) {
		m := backticks(b, i)
		if m == n {
			return i
		}
		i += max(m, 1)
	}
	return -1
}

// backticks is the length of the run of backticks at b[i].
func backticks(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}

// TestREADMEShort: the README is what people read first — what llmsla
// is, the two commands, an endpoint, a scenario, exit codes, CI, links —
// and stays short; the rest lives in docs/.
func TestREADMEShort(t *testing.T) {
	if n := strings.Count(read(t, "README.md"), "\n"); n > 200 {
		t.Errorf("README.md has %d lines, over 200: move the detail into docs/", n)
	}
}
