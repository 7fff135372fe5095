package session

import (
	"fmt"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/quality"
)

// checkConversations refuses a fixture of conversations on a scenario
// that would not play them, on any endpoint: a level of single requests
// (concurrency:, rate:, ramp:) would send their first turns alone, and a
// capacity search steps such levels. Nothing has been sent.
func checkConversations(cfg *config.Config, sc Scenario, cases []quality.Case) error {
	var conv *quality.Case
	for i := range cases {
		if cases[i].IsConversation() && len(cases[i].Turns) > 1 {
			conv = &cases[i]
			break
		}
	}
	if conv == nil {
		return nil
	}
	for _, ep := range cfg.EndpointNames() {
		conf := cfg.Scenario(sc.Name, ep)
		if conf.Capacity != nil {
			return fmt.Errorf("%s:%d: case %s is a conversation, and scenario %s has a capacity search on endpoint %s, whose steps would send its first turn alone: search a scenario of single requests",
				conv.File, conv.Line, conv.ID, sc.Name, ep)
		}
		for _, lv := range conf.Levels() {
			if !load.PacesSessions(lv.Pacer) {
				return fmt.Errorf("%s:%d: case %s is a conversation, and scenario %s's level %s on endpoint %s would send its first turn alone: give it levels of conversations (sessions:, session_rate:)",
					conv.File, conv.Line, conv.ID, sc.Name, lv.Label(), ep)
			}
		}
	}
	return nil
}
