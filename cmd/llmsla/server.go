package main

import (
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/server"
)

// loadServers reads the server files beside the samples files paths stand
// for (server.FileName: results/<run>.server.jsonl), every line checked,
// into each level's server figures for the verdicts. A run without one
// has no server figures; a file cut short is refused unless partial.
func loadServers(paths []string, partial bool) (objective.Servers, []error, error) {
	files, err := sample.Files(paths)
	if err != nil {
		return nil, nil, err
	}
	figs, cut, err := server.ReadBeside(files, partial)
	if err != nil {
		return nil, nil, err
	}
	return server.Lookup(figs), cut, nil
}
