package session

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
)

// CheckShard reports, on any endpoint, a capacity search of the scenario
// (its steps would each be split, and the limit found be no machine's) or
// a level that cannot be split over the shards (fewer workers than shards):
// checked for every scenario before go test starts, and by the glue. An
// endpoint whose API cannot serve the scenario (Unfit) sends it nothing,
// so its levels need no share.
func CheckShard(cfg *config.Config, sc Scenario, shard load.Shard) error {
	if !shard.On() {
		return nil
	}
	scenario := sc.Name
	for _, ep := range cfg.EndpointNames() {
		if cs := cfg.Scenario(scenario, ep).Capacity; cs != nil {
			return fmt.Errorf("%s: a capacity search cannot be sharded: run it on one machine, and the sharded run with an SLA file without the capacity: block (this is shard %s)",
				cs.Where(), shard)
		}
	}
	for _, e := range cfg.Endpoints {
		if _, unfit := Unfit(sc, e); unfit {
			continue
		}
		ep := e.Name
		for _, lv := range cfg.Scenario(scenario, ep).Levels() {
			if _, err := shard.Pacer(lv.Pacer); err != nil {
				return fmt.Errorf("shard %s: scenarios.%s (%s): %w; set its levels for the shards in the SLA file", shard, scenario, lv.Label(), err)
			}
		}
	}
	return nil
}
