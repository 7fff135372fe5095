package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// parse parses args with fs, flags before or after the positional
// arguments alike (llmsla verdict -log prod.log.jsonl -window 1h): after
// each positional argument the flags go on, until "--", after which
// everything is positional. fs.Args() is then the positional arguments,
// in order. Every command parses its flags with it.
func parse(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// isSet reports whether the flag name was given on the command line (a
// duration of 0 given is not the default left alone).
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// misnamed declares the flag name as another command's spelling, or an
// old one, refused saying which to use: -o FILE is one file a command
// writes (report, trace), -out DIR the directory of recorded runs
// (bench, capacity, ab); bench's -keep counts runs, trace synth's share
// of rows is -subsample.
func misnamed(fs *flag.FlagSet, name, use string) {
	fs.Func(name, "not this command's: "+use, func(string) error { return errors.New(use) })
}

// Why each command refuses the other's spelling.
const (
	useOut      = "-o names one file a command writes (report, trace); the directory of recorded runs is -out DIR"
	useO        = "-out names the directory of recorded runs (bench, capacity, ab); the file this command writes is -o FILE"
	allowChange = "judge a run whose endpoint served several models or fingerprints on their pooled figures (else exit 2)"
)

// configFlag declares -config on fs: the SLA file recorded runs are
// judged against, instead of the one they were measured under.
func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "", "judge against this SLA `file` (default: the one the run was measured under, as its samples recorded it; for files that recorded none, $LLMSLA_CONFIG or sla.yaml)")
}

// newFlags is a command's flag set: errors and -h on stderr, -h printing
// the command's usage text (usage: one of usage/*.txt, "" none) before its
// flags.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() {
			fmt.Fprint(fs.Output(), usage)
			fs.PrintDefaults()
		}
	}
	return fs
}
