package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParse: flags before, between and after the positional arguments
// are flags, the arguments keep their order, and after "--" everything
// is an argument.
func TestParse(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		n    int
		rest []string
	}{
		"before":     {[]string{"-n", "3", "a", "b"}, 3, []string{"a", "b"}},
		"after":      {[]string{"a", "b", "-n", "3"}, 3, []string{"a", "b"}},
		"between":    {[]string{"a", "-n", "3", "b"}, 3, []string{"a", "b"}},
		"after --":   {[]string{"a", "--", "-n", "3"}, 0, []string{"a", "-n", "3"}},
		"a lone -":   {[]string{"-", "-n", "3"}, 3, []string{"-"}},
		"no args":    {nil, 0, nil},
		"flags only": {[]string{"-n", "3"}, 3, nil},
	} {
		t.Run(name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			n := fs.Int("n", 0, "")
			require.NoError(t, parse(fs, tc.args))
			assert.Equal(t, tc.n, *n)
			assert.Equal(t, len(tc.rest), fs.NArg())
			for i, a := range tc.rest {
				assert.Equal(t, a, fs.Arg(i))
			}
		})
	}
}

// TestFlagsAfterArguments (issue 27): every command takes its flags
// after its positional arguments too — `llmsla verdict -log
// prod.log.jsonl -window 1h`, as docs/traces.md writes it, used to read
// -window as a file; a command's flag given after a stray argument is
// read (and the stray argument refused where none is taken); -o and
// -out are refused where the other is meant, naming it; a window of no
// length, or a negative one, is refused naming -window (issue 29, item 8).
func TestFlagsAfterArguments(t *testing.T) {
	simEnv(t, "")
	td, err := filepath.Abs(testdata)
	require.NoError(t, err)
	testdata := td + "/"
	t.Chdir(t.TempDir()) // no results/ here
	log := prodLog(t, 100, "", 1, 5)
	cut := recordChat(t, 0, "m")
	whole, err := os.ReadFile(cut)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cut, whole[:len(whole)-20], 0o644))
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	cases := map[string]struct {
		args   []string
		code   int
		stdout string // wanted in stdout
		stderr string // wanted in stderr
	}{
		"verdict -log FILE -window":     {[]string{"verdict", "-log", log, "-window", "1h"}, 0, "window=2026-11-30T09:00Z", ""},
		"verdict FILE -partial":         {[]string{"verdict", cut, "-partial"}, 0, "judged on the requests that finished", ""},
		"verdict -window -1h":           {[]string{"verdict", "-log", log, "-window", "-1h"}, 2, "", "-window: -1h0m0s is not a window: want from 1m0s to a week"},
		"verdict -window -1h LOG":       {[]string{"verdict", "-log", "-window", "-1h", log}, 2, "", "-window: -1h0m0s is not a window: want from 1m0s to a week"},
		"verdict -window 0":             {[]string{"verdict", "-log", log, "-window", "0"}, 2, "", "-window: 0s is not a window: want from 1m0s to a week"},
		"report FILE -format":           {[]string{"report", recordChat(t, 0, "m"), "-format", "csv"}, 0, "endpoint,", ""},
		"report -out":                   {[]string{"report", "-out", "dir", recordChat(t, 0, "m")}, 2, "", "the file this command writes is -o FILE"},
		"gate BASE NEW -tolerance":      {[]string{"gate", testdata + "base.txt", testdata + "new.txt", "-tolerance", "ttft-*-ms=30%"}, 0, "gate PASS", ""},
		"gate -log -window 0":           {[]string{"gate", "-log", log, "2026-11-30T09:00Z", "2026-11-30T10:00Z", "-window", "0"}, 2, "", "-window: 0s is not a window: want from 1m0s to a week"},
		"compare FILE -full":            {[]string{"compare", testdata + "base.txt", "-full"}, 0, "±", ""},
		"baseline stray -from":          {[]string{"baseline", "stray", "-from", "x.txt"}, 2, "", `["stray"]: want no arguments`},
		"bench stray -count":            {[]string{"bench", "stray", "-count", "0"}, 2, "", `-count 0, -n 20: want -count ≥ 1`},
		"bench -o":                      {[]string{"bench", "-o", "x.txt"}, 2, "", "the directory of recorded runs is -out DIR"},
		"capacity stray -nonsense":      {[]string{"capacity", "stray", "-nonsense"}, 2, "", "flag provided but not defined: -nonsense"},
		"capacity -o":                   {[]string{"capacity", "-o", "x"}, 2, "", "-out DIR"},
		"ab BASE CAND -n":               {[]string{"ab", "prod", "twin", "-n", "0"}, 2, "", "-n 0, -count 5"},
		"ab -o":                         {[]string{"ab", "-o", "x", "prod", "twin"}, 2, "", "-out DIR"},
		"judge calibrate stray -labels": {[]string{"judge", "calibrate", "stray", "-labels", "l.jsonl"}, 2, "", `(got "l.jsonl", "", ["stray"]`},
		"sim stray -spec":               {[]string{"sim", "stray", "-spec", "nonsense=1"}, 2, "", "llmsla sim: -spec:"},
		"trace analyze FILE -nonsense":  {[]string{"trace", "analyze", "x.jsonl", "-nonsense"}, 2, "", "flag provided but not defined: -nonsense"},
		"trace from-log LOG -o":         {[]string{"trace", "from-log", log, "-o", trace}, 0, "wrote 297 rows to " + trace, ""},
		"trace synth -out":              {[]string{"trace", "synth", "-out", "x", "f"}, 2, "", "-o FILE"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- dispatch(tc.args, &stdout, &stderr) }()
			select {
			case code := <-done:
				assert.Equal(t, tc.code, code, "llmsla %s\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), &stdout, &stderr)
			case <-time.After(time.Minute):
				t.Fatalf("llmsla %s did not return: a flag after an argument was not read", strings.Join(tc.args, " "))
			}
			assert.Contains(t, stdout.String(), tc.stdout)
			assert.Contains(t, stderr.String(), tc.stderr)
		})
	}
}
