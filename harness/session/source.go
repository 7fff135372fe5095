package session

import (
	"fmt"
	"path/filepath"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
)

// Source builds the requests of a scenario from its fixture cases (a path
// relative to the module root), and tells the simulators the right and
// wrong answer to each. A fixture of conversations is refused on a
// scenario whose levels do not play conversations. A scenario with quality off (quality: off,
// -latency-only) is sent without its checks: its answers are not judged.
func (s *Session) Source(sc Scenario) (*load.Fixture, error) {
	cases, opts, err := s.Cases(sc)
	if err != nil {
		return nil, err
	}
	f, err := load.NewFixture(cases, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Fixture, err)
	}
	return f, nil
}

// Cases loads a scenario's fixture cases and how they become requests, and
// tells the simulators the right and wrong answer to each: what Source
// builds a fixture of, for a caller that builds its own (load.Interleave
// builds one per endpoint).
func (s *Session) Cases(sc Scenario) ([]quality.Case, load.FixtureOptions, error) {
	opts := load.FixtureOptions{System: sc.System, Structured: sc.Structured,
		Lenient: sc.Lenient, Temperature: sc.Temperature, Seed: sc.Seed, NoChecks: s.cfg.Scenario(sc.Name, "").QualityOff}
	if err := sc.Check(); err != nil {
		return nil, opts, err
	}
	path, err := FromRoot(sc.Fixture)
	if err != nil {
		return nil, opts, err
	}
	cases, err := quality.LoadCases(path)
	if err != nil {
		return nil, opts, err
	}
	// A case id names golden files and shows in go test output: one that
	// holds a secret of the configuration is refused before any request.
	if err := quality.CheckIDs(cases, s.secrets); err != nil {
		return nil, opts, fmt.Errorf("%s: %w", sc.Fixture, err)
	}
	if err := checkConversations(s.cfg, sc, cases); err != nil {
		return nil, opts, err
	}
	if err := s.concerns.Judge.Plan(sc.Name, sc.Rubric, cases, opts.NoChecks); err != nil {
		return nil, opts, err
	}
	Teach(s.eps.answers, cases)
	return cases, opts, nil
}

// FromRoot is path, taken from the module root unless it is absolute: a
// suite names its files from there, and go test runs in the package's
// directory.
func FromRoot(path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	root, err := config.ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, path), nil
}
