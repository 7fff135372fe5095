package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/load"
)

// How this process runs among others: as a shard of a run several send,
// or as a capacity search of one scenario — both read from the environment
// llmsla bench and llmsla capacity set for the test binary.

// sharding reads the shard of this process, the agreed start and the
// length of a run's slot from the environment, and checks that every
// level of every scenario can be split.
func (c *Config) sharding() error {
	spec := os.Getenv(EnvShard)
	if idx := os.Getenv("JOB_COMPLETION_INDEX"); spec == "" && idx != "" && os.Getenv(EnvShards) != "" {
		spec = idx + "/" + os.Getenv(EnvShards)
	}
	if spec != "" {
		sh, err := load.ParseShard(spec)
		if err != nil {
			return fmt.Errorf("%s: %w", EnvShard, err)
		}
		c.Shard = sh
	}
	if at := os.Getenv(EnvStartAt); at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return fmt.Errorf("%s: %q is not an RFC 3339 time (e.g. 2026-12-01T10:00:00Z)", EnvStartAt, at)
		}
		c.StartAt = t
	}
	if every := os.Getenv(EnvLevelEvery); every != "" {
		d, err := time.ParseDuration(every)
		switch {
		case err != nil || d <= 0:
			return fmt.Errorf("%s: %q is not a duration > 0 (e.g. 30s)", EnvLevelEvery, every)
		case c.StartAt.IsZero():
			return fmt.Errorf("%s=%s: the slots count from the agreed start: set %s (-start-at) too", EnvLevelEvery, every, EnvStartAt)
		}
		c.LevelEvery = d
	}
	if !c.Shard.On() {
		return nil
	}
	if c.CapacityOnly != "" {
		return fmt.Errorf("shard %s: %s=%s: a capacity search cannot be sharded: run it on one machine (unset %s)",
			c.Shard, EnvCapacity, os.Getenv(EnvCapacity), EnvShard)
	}
	// The scenarios the file names are checked now; a preset the file does
	// not name, when its suite starts (CheckShard), before its first request.
	names := make([]string, 0, len(c.lines))
	for name := range c.lines {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := c.CheckShard(name); err != nil {
			return err
		}
	}
	return nil
}

// CheckShard reports, on any endpoint, a capacity search of the scenario
// (its steps would each be split, and the limit found be no machine's) or
// a level that cannot be split over the shards (fewer workers than shards).
func (c *Config) CheckShard(scenario string) error {
	if !c.Shard.On() {
		return nil
	}
	for _, ep := range c.EndpointNames() {
		if cs := c.Scenario(scenario, ep).Capacity; cs != nil {
			where := cs.where
			if where == "" {
				where = EnvCapacity
			}
			return fmt.Errorf("%s: a capacity search cannot be sharded: run it on one machine, and the sharded run with an SLA file without the capacity: block (this is shard %s)",
				where, c.Shard)
		}
	}
	for _, ep := range c.EndpointNames() {
		for _, lv := range c.Scenario(scenario, ep).Levels() {
			if _, err := c.Shard.Pacer(lv.Pacer); err != nil {
				return fmt.Errorf("shard %s: scenarios.%s (%s): %w; set its levels for the shards in the SLA file", c.Shard, scenario, lv.Label(), err)
			}
		}
	}
	return nil
}

// capacityOnly applies $LLMSLA_CAPACITY: the scenario to search, and the
// search's settings on top of its capacity: block (or the defaults).
func (c *Config) capacityOnly(spec string) error {
	if spec == "" {
		return nil
	}
	name, opts, _ := strings.Cut(spec, ":")
	sc := c.Scenario(name, "")
	cs := DefaultCapacity()
	if sc.Capacity != nil {
		cs = *sc.Capacity
	}
	cs.where = ""
	for _, kv := range strings.Split(opts, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q: want key=value with keys %s", kv, strings.Join(capacityKeys, ", "))
		}
		if err := cs.set(k, v); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	if err := cs.check(); err != nil {
		return err
	}
	set := func(sc Scenario) Scenario { sc.Capacity = &cs; return sc }
	c.Scenarios[name] = set(sc)
	for ep, o := range c.PerEndpoint[name] {
		c.PerEndpoint[name][ep] = set(o)
	}
	c.CapacityOnly = name
	return nil
}
