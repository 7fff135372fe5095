package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// stampFile is a recorded run's file in a results directory:
// 20261201T101500Z.txt, its .samples.jsonl, .summary.json, .judge.jsonl
// (the judge's requests) and .server.jsonl (the servers' readings), a
// shard's .shard0of3 forms.
var stampFile = regexp.MustCompile(`^(\d{8}T\d{6}Z(?:\.shard\d+of\d+)?)\.(txt|samples\.jsonl|summary\.json|judge\.jsonl|server\.jsonl)$`)

// retain removes the oldest recorded runs of dir beyond keep (0 keeps
// all), each run's files together. latest.* and any file not named as
// bench names its runs are never touched: a baseline kept in results/, or
// a user's file, stays.
func retain(dir string, keep int) error {
	if keep == 0 {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	files := map[string][]string{}
	for _, e := range entries {
		if m := stampFile.FindStringSubmatch(e.Name()); m != nil && e.Type().IsRegular() {
			files[m[1]] = append(files[m[1]], e.Name())
		}
	}
	stamps := make([]string, 0, len(files))
	for s := range files {
		stamps = append(stamps, s)
	}
	slices.SortFunc(stamps, strings.Compare) // UTC stamps sort as time
	var errs []error
	for _, s := range stamps[:max(len(stamps)-keep, 0)] {
		for _, name := range files[s] {
			errs = append(errs, os.Remove(filepath.Join(dir, name)))
		}
	}
	return errors.Join(errs...)
}
