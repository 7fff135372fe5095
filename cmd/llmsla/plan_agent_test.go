package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/session"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestPlanCountsAgentLoops: a measured prompt of a fixture of agent loops
// is counted at its max_steps, and the plan says its count is an upper
// bound (the model decides how many steps a loop takes); its cold
// request, warm-up and probes are one request each, as the runner sends
// them. A fixture without loops is counted exactly, as before.
func TestPlanCountsAgentLoops(t *testing.T) {
	root, err := config.ModuleRoot()
	require.NoError(t, err)
	fixture := func(name string) *load.Fixture {
		cases, err := quality.LoadCases(filepath.Join(root, "fixtures", name))
		require.NoError(t, err)
		f, err := load.NewFixture(cases, load.FixtureOptions{})
		require.NoError(t, err)
		return f
	}
	agent, tools := fixture("agent.jsonl"), fixture("tools.jsonl")
	require.Equal(t, 4, agent.Steps(), "the agent fixture's largest max_steps")
	require.Equal(t, 1, tools.Steps())
	sc := config.Generic()
	sc.Concurrency, sc.Warmup = []int{1, 2}, 1
	cfg := &config.Config{Endpoints: []stream.Endpoint{{Name: "far", Model: "m"}},
		Scenarios: map[string]config.Scenario{"agent": sc, "tools": sc}}
	s, err := session.New(cfg, session.Run{}, session.Options{})
	require.NoError(t, err)
	defer s.Close()
	p, err := s.Plan([]session.Scenario{{Name: "agent"}, {Name: "tools"}}, map[string]*load.Fixture{"agent": agent, "tools": tools}, 2, 3)
	require.NoError(t, err)
	require.Len(t, p.Rows, 2)
	loops, plain := p.Rows[0], p.Rows[1]
	// 2 levels × 2 runs × 3 prompts, each up to 4 requests; cold 1 +
	// warm-up max(1, 1) + the second level's 2 connections + 4 probes.
	assert.Equal(t, 48, loops.Measured)
	assert.Equal(t, 12, plain.Measured)
	assert.Equal(t, 8, loops.Other)
	assert.Equal(t, 8, plain.Other)
	var out bytes.Buffer
	report.WritePlan(&out, p.Report())
	assert.Contains(t, out.String(), "up to 48 measured (agent loops of up to 4 steps) + 8 other")
	assert.Contains(t, out.String(), "12 measured + 8 other")
	assert.Contains(t, out.String(), "total: up to 76 requests (60 measured, 16 probes, warm-up and cold)")
}
