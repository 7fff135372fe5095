package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// documented is a command line the README or docs/ show in a code block.
type documented struct {
	file string
	line int
	env  map[string]string
	args []string // after "llmsla"
	make string   // a make target, instead of args
	// shown is the line the docs show after it, its output ("" none): a
	// command shown failing on purpose prints it.
	shown string
}

var (
	// a command line: env assignments, then llmsla (bin/llmsla, go run
	// ./cmd/llmsla) or make, then its words; an output line ("llmsla
	// gate: BLIND …") is no command.
	commandLine = regexp.MustCompile(`^(?:\$ )?((?:[A-Z_]+=\S*\s+)*)(bin/llmsla|llmsla|go run \./cmd/llmsla|make)(\s.*)?$`)
	envWord     = regexp.MustCompile(`([A-Z_]+)=(\S*)`)
)

// documentedCommands are the commands of the README and docs/*.md's code
// blocks, each with where it is shown. A synopsis ("[-judge NAME]") or a
// placeholder ("sk-…") is no command to run.
func documentedCommands(t *testing.T) []documented {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	var out []documented
	for _, f := range append([]string{"../../README.md"}, files...) {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		in := false
		lines := strings.Split(string(raw), "\n")
		exported := map[string]string{} // a block's export lines, for the commands after them
		for i, l := range lines {
			if strings.HasPrefix(l, "```") {
				in, exported = !in, map[string]string{}
				continue
			}
			if e, ok := strings.CutPrefix(strings.TrimSpace(l), "export "); ok && in {
				for _, m := range envWord.FindAllStringSubmatch(e, -1) {
					exported[m[1]] = m[2]
				}
				continue
			}
			m := commandLine.FindStringSubmatch(strings.TrimSpace(l))
			if !in || m == nil || strings.ContainsAny(l, "[…") {
				continue
			}
			rest := m[3]
			if c, _, ok := strings.Cut(rest, " #"); ok {
				rest = c
			}
			rest, _, _ = strings.Cut(rest, ";")
			rest, _, _ = strings.Cut(rest, "|")
			words := shellWords(rest)
			if len(words) > 0 && strings.HasSuffix(words[0], ":") {
				continue // output: "llmsla bench: exit 0"
			}
			d := documented{file: strings.TrimPrefix(f, "../../"), line: i + 1, env: maps.Clone(exported)}
			if next := lines[min(i+1, len(lines)-1)]; !strings.HasPrefix(next, "```") && !strings.HasPrefix(next, "$ ") {
				d.shown, _, _ = strings.Cut(strings.TrimSpace(next), "…")
			}
			for _, e := range envWord.FindAllStringSubmatch(m[1], -1) {
				d.env[e[1]] = e[2]
			}
			if m[2] == "make" {
				if len(words) == 0 {
					words = []string{"bench"} // make's first target is bench
				}
				d.make = words[0]
			} else {
				d.args = words
			}
			out = append(out, d)
		}
	}
	return out
}

// shellWords splits s as sh does for the quoting docs use: spaces, and
// '…' or "…" around a word.
func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	quote, word := rune(0), false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote, word = r, true
		case r == ' ' || r == '\t':
			if word {
				out = append(out, b.String())
				b.Reset()
				word = false
			}
		default:
			b.WriteRune(r)
			word = true
		}
	}
	if word {
		out = append(out, b.String())
	}
	return out
}

// invocationError is what llmsla says when a command line itself is
// wrong: a command, a flag or an argument count it no longer takes.
var invocationError = regexp.MustCompile(`flag provided but not defined|unknown command|invalid value "|invalid boolean|extra arguments|want no arguments|\nUsage|^usage:`)

// TestDocumentedCommandsRun: every llmsla command the README and docs/
// show runs, as shown, on the module's own files (golden/, traces/,
// fixtures/, examples/; results/ holds a copy of the committed baseline,
// and every file the docs' readers make themselves is in a fresh
// directory where it is absent): none is refused as a command line — a
// flag renamed, a subcommand gone, an argument count changed — and those
// whose inputs ship with the module pass (bench is run -dry-run: it
// plans, checks the configuration and sends nothing). Every make target
// shown exists.
func TestDocumentedCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the suites")
	}
	simEnv(t, "")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	cmds := documentedCommands(t)
	require.GreaterOrEqual(t, len(cmds), 30, "the docs' commands were not found: the extraction is broken")
	ran, passed := 0, 0
	for _, d := range cmds {
		name := d.file + ":" + strings.Join(append([]string{d.make}, d.args...), " ")
		if d.make != "" {
			assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(d.make)+`:`, string(makefile), "%s:%d: make %s: no such target", d.file, d.line, d.make)
			continue
		}
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			for _, f := range []string{"latest.txt", "latest.samples.jsonl"} {
				b, err := os.ReadFile(filepath.Join(root, "golden", strings.Replace(f, "latest", "baseline", 1)))
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Join(tmp, "results"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(tmp, "results", f), b, 0o644))
			}
			// A relative path the module does not hold is the reader's own.
			at := func(p string) string {
				first, _, _ := strings.Cut(p, "/")
				if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "-") || !strings.ContainsAny(p, "./") {
					return p
				}
				if _, err := os.Stat(filepath.Join(root, first)); err == nil && first != "results" {
					return filepath.Join(root, p)
				}
				if _, err := strconv.ParseFloat(p, 64); err == nil || first != "results" && !strings.Contains(p, ".") {
					return p // a shard 0/3, a column /endpoint
				}
				return filepath.Join(tmp, p)
			}
			args := slices.Clone(d.args)
			for i := 1; i < len(args); i++ {
				if v, ok := strings.CutPrefix(args[i], "-"); ok && strings.Contains(v, "=") {
					continue // -tolerance unit=5%
				}
				args[i] = at(args[i])
			}
			for k, v := range d.env {
				if k == "LLMSLA_CONFIG" {
					v = at(v)
				}
				t.Setenv(k, v)
			}
			if args[0] == "bench" {
				args = append(args, "-dry-run", "-pkg", filepath.Join(root, "suites")+"/...")
			}
			if slices.Contains([]string{"bench", "ab", "capacity"}, args[0]) && !slices.Contains(args, "-out") {
				args = append(args, "-out", filepath.Join(tmp, "results")) // never the module's results/
			}
			t.Chdir(root)
			var stdout, stderr bytes.Buffer
			code := dispatch(args, &stdout, &stderr)
			ran++
			onPurpose := d.shown != "" && strings.Contains(stderr.String(), d.shown)
			if invocationError.MatchString(stderr.String()) && !onPurpose || code > exitBroken {
				t.Errorf("%s:%d: llmsla %s: exit %d, refused as a command line:\n%s", d.file, d.line, strings.Join(d.args, " "), code, &stderr)
				return
			}
			if code == exitOK {
				passed++
			}
			t.Logf("%s:%d: exit %d %s", d.file, d.line, code, firstLine(stderr.String()))
		})
	}
	t.Logf("%d documented commands ran, %d exited 0 (the others need files their readers make, or show a failure on purpose)", ran, passed)
	assert.GreaterOrEqual(t, passed, 10, "the commands whose inputs ship with the module pass")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
