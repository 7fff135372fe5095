package session

import (
	"context"
	"fmt"
	"slices"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/stream"
)

// Capability is what a scenario's requests need of an endpoint beyond a
// chat completion: tool calls (a fixture of tool cases offers tools),
// structured output (response_format json_schema).
type Capability string

const (
	Tools      Capability = "tools"
	Structured Capability = "structured output"
	// Embedding and Generation are what an endpoint's api: serves: an
	// embeddings scenario needs api: embeddings, any other scenario
	// another api. Known from the configuration: no probe is sent.
	Embedding  Capability = "embeddings"
	Generation Capability = "generation"
)

// lacks says what an endpoint that refuses a capability does not do.
var lacks = map[Capability]string{Tools: "does not call tools", Structured: "does not take structured output (response_format json_schema)",
	Embedding: "does not embed", Generation: "does not generate text"}

// Unfit says whether ep's API cannot serve sc at all (an embeddings
// scenario on a generating endpoint, or the other way round), as the
// Unserved entry that says so.
func Unfit(sc Scenario, ep stream.Endpoint) (Unserved, bool) {
	embeds := ep.API == stream.APIEmbeddings
	switch {
	case sc.Embeddings && !embeds:
		return Unserved{Scenario: sc.Name, Endpoint: ep.Name, Lacks: Embedding, Why: "it is api: " + string(ep.API.Or()) + ", the scenario needs api: embeddings"}, true
	case !sc.Embeddings && embeds:
		return Unserved{Scenario: sc.Name, Endpoint: ep.Name, Lacks: Generation, Why: "it is api: embeddings"}, true
	}
	return Unserved{}, false
}

// Embeds says, of the scenarios named, which embed (Scenario.Embeddings)
// among defined; a name not among them is not defined's to say, and
// passes (config.CheckBatch: CheckScenarios names an undefined one).
func Embeds(defined []Scenario) func(name string) bool {
	return func(name string) bool {
		i := slices.IndexFunc(defined, func(sc Scenario) bool { return sc.Name == name })
		return i < 0 || defined[i].Embeddings
	}
}

// Unserved is a scenario an endpoint cannot serve: the capability it
// lacks, and the server's word for it.
type Unserved struct {
	Scenario, Endpoint string
	Lacks              Capability
	Why                string
}

// String is "tools endpoint=local: not measured (the endpoint does not
// call tools: HTTP 400 … does not support tools)".
func (u Unserved) String() string {
	return fmt.Sprintf("%s endpoint=%s: not measured (the endpoint %s: %s)", u.Scenario, u.Endpoint, lacks[u.Lacks], u.Why)
}

// needs lists what sc's requests need, each with the first prompt that
// needs it.
func needs(sc Scenario, fix *load.Fixture) map[Capability]load.Prompt {
	out := map[Capability]load.Prompt{}
	for i := range fix.Len() {
		p := fix.Prompt(i)
		if _, seen := out[Tools]; !seen && len(p.Request.Tools) > 0 {
			out[Tools] = p
		}
	}
	if sc.Structured && fix.Len() > 0 {
		out[Structured] = fix.Prompt(0)
	}
	return out
}

// capabilities asks each endpoint, with one request of one token, for
// every capability each scenario needs, and returns the scenarios an
// endpoint refused one of as the client's error (Ollama answers HTTP 400
// "does not support tools" for a model whose template offers none). Any
// other failure is the preflight's and the plan's probe's to say.
func (e *endpoints) capabilities(ctx context.Context, cfg *config.Config, secrets *secret.Set, scenarios []Scenario, fixtures map[string]*load.Fixture) []Unserved {
	var out []Unserved
	for _, sc := range scenarios {
		unfit := map[string]bool{}
		for _, ep := range cfg.Endpoints {
			if u, ok := Unfit(sc, ep); ok {
				out, unfit[ep.Name] = append(out, u), true
			}
		}
		for cap, p := range needs(sc, fixtures[sc.Name]) {
			for _, ep := range cfg.Endpoints {
				if unfit[ep.Name] {
					continue
				}
				req := p.Request
				req.MaxTokens = 1
				smp := e.clients[ep.Name].Do(ctx, req)
				if smp.ErrKind == sample.KindClientError {
					out = append(out, Unserved{Scenario: sc.Name, Endpoint: ep.Name, Lacks: cap, Why: secrets.Redact(smp.Err)})
				}
			}
		}
	}
	return out
}
