package config

import (
	"net/textproto"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/objective"
)

// headerName is an HTTP header's name: a token (RFC 9110, 5.1).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// ownHeaders are the headers every request sets itself, which a session
// header must not replace.
var ownHeaders = []string{"Authorization", "Content-Type", "Content-Length", "Accept", "Accept-Encoding", "Host", "Connection", "Transfer-Encoding"}

// sessionHeader reads session_header: a header name that is not one the
// client sets itself.
func (p *configParser) sessionHeader(v *yaml.Node, key string) string {
	h := p.str(v, key)
	switch {
	case v.Kind != yaml.ScalarNode:
	case !headerName.MatchString(h):
		p.errf(v, key, "%q is not a header name (allowed: letters, digits and !#$%%&'*+-.^_`|~, e.g. X-Session-Affinity)", h)
	case slices.Contains(ownHeaders, textproto.CanonicalMIMEHeaderKey(h)):
		p.errf(v, key, "%s is a header every request sets itself (allowed: any other, e.g. X-Session-Affinity)", h)
	}
	return h
}

// turnObjectives reads a turn_ objective of an sla: block,
// turn_ttft_p95_ms: {5: 800}, into sc's objectives, and reports whether m
// was one (a key starting turn_).
func (p *configParser) turnObjectives(sc *Scenario, key, m string, v *yaml.Node) bool {
	if !strings.HasPrefix(m, "turn_") {
		return false
	}
	if v.Kind != yaml.MappingNode {
		p.errf(v, key, "want a mapping of turn to bound, e.g. {5: 800} (from turn 5 on; %s bounds every turn)", strings.TrimPrefix(m, "turn_"))
		return true
	}
	p.mapping(v, key, nil, func(turn string, b *yaml.Node) {
		k, err := strconv.Atoi(turn)
		if err != nil {
			p.errf(b, key+"."+turn, "%q is not a turn (want a whole number from 1, e.g. {5: 800})", turn)
			return
		}
		th, err := objective.ParseTurn(m, k, p.num(b, key+"."+turn))
		if err != nil {
			p.errf(b, key+"."+turn, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), m+"."+turn+": "), m+": "))
			return
		}
		sc.Objectives = sc.Objectives.Set(th)
	})
	return true
}

// checkConversation reports a session_header on a scenario without a
// level of conversations, which would name nothing.
func (p *configParser) checkConversation(sc Scenario, key string, set map[string]*yaml.Node) {
	v, ok := set["session_header"]
	if !ok || slices.ContainsFunc(sc.Levels(), func(l Level) bool { return load.PacesSessions(l.Pacer) }) {
		return
	}
	p.errf(v, key+".session_header", "names the conversations of sessions: or session_rate: levels: set one of those too")
}

// conversationPreset is the conversation scenario's: sc (chat's targets,
// which every turn must meet) at 1 and 4 conversations in flight, the
// history allowed 900 ms from turn 4 on.
func conversationPreset(sc Scenario) Scenario {
	sc.Concurrency, sc.Loads = nil, []load.Pacer{load.Sessions(1), load.Sessions(4)}
	th, err := objective.ParseTurn("turn_ttft_p95_ms", 4, 900)
	if err != nil {
		panic(err) // a built-in objective cannot be wrong
	}
	sc.Objectives = sc.Objectives.Set(th)
	return sc
}
