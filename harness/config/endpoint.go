package config

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/server"
	"github.com/llmsla/llmsla/harness/stream"
)

// endpointAt is an endpoint as its keys are read.
type endpointAt struct {
	stream.Endpoint
	cfg            *Config
	isSim, kindSet bool
	srv            *server.Config // its server keys, nil when none is written
}

// server is the endpoint's server keys, written into cfg.Servers.
func (e *endpointAt) server() *server.Config {
	if e.srv == nil {
		e.srv = &server.Config{}
	}
	return e.srv
}

// endpointKeys are an endpoint's keys.
var endpointKeys = section[*endpointAt]{
	{"base_url", "up to and including /v1", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.BaseURL = p.str(v, key)
		if err := checkURL(e.BaseURL); err != nil {
			p.errf(v, key, "%v", err)
		}
	}},
	{"model", "the model to ask", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.Model = p.str(v, key)
		if err := checkModel(e.Model); err != nil {
			p.errf(v, key, "%v", err)
		}
	}},
	{"api_key_env", "the variable holding the key", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.KeyEnv = p.str(v, key)
		e.cfg.keyEnvs = append(e.cfg.keyEnvs, e.KeyEnv)
	}},
	{"headers", "extra request headers", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.Headers = map[string]string{}
		p.mapping(v, key, nil, func(h string, v *yaml.Node) {
			if strings.EqualFold(h, "authorization") {
				p.errf(v, key+"."+h, "put the key in the environment and name it with api_key_env, not in the file")
			}
			e.Headers[h] = p.str(v, key+"."+h)
		})
	}},
	{"timeouts", "how long to wait for the headers, between tokens, in all", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		timeoutKeys.parse(p, v, key, &e.Timeouts)
	}},
	{"kind", "what serves it (stream.Kinds)", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.kindSet = true
		e.Kind = stream.Kind(p.str(v, key))
		if !slices.Contains(stream.Kinds, e.Kind) {
			p.errf(v, key, "%q is not a kind (allowed: %s)", e.Kind, kinds())
		}
	}},
	{"api", "the API it is served behind (stream.APIs)", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.API = stream.API(p.str(v, key))
		if !slices.Contains(stream.APIs, e.API) {
			p.errf(v, key, "%q is not an API (allowed: %s)", e.API, apis())
		}
	}},
	{"anthropic_version", "the anthropic-version header of api: messages", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.AnthropicVersion = p.str(v, key)
		if _, err := time.Parse(time.DateOnly, e.AnthropicVersion); err != nil {
			p.errf(v, key, "%q is not a version (a date, e.g. %s)", e.AnthropicVersion, stream.DefaultAnthropicVersion)
		}
	}},
	{"max_tokens_param", "the name of the answer's cap in a request", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.MaxTokensParam = p.str(v, key)
		if e.MaxTokensParam != stream.MaxTokens && e.MaxTokensParam != stream.MaxCompletionTokens {
			p.errf(v, key, "%q is not a parameter (allowed: %s, %s)", e.MaxTokensParam, stream.MaxTokens, stream.MaxCompletionTokens)
		}
	}},
	{"sim", "the built-in simulator's spec, instead of base_url", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.isSim = true
		spec := p.str(v, key)
		if err := validSimSpec(spec); err != nil {
			p.errf(v, key, "%v", err)
		}
		e.cfg.SimSpecs[e.Name] = spec
	}},
	{"price", "per million tokens, or per hour", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		if pr, ok := p.price(v, key); ok {
			e.cfg.Prices[e.Name] = pr
		}
	}},
	{"server_metrics", "where the server's /metrics are read, and how often", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		p.serverMetrics(e.server(), v, key)
	}},
	{"server_pid", "the server's process on this machine", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		e.server().PID = p.count(v, key, 1, math.MaxInt32)
	}},
	{"exclusive", "the server serves this run alone", func(p *configParser, e *endpointAt, v *yaml.Node, key string) {
		p.exclusive(e.server(), v, key)
	}},
}

// timeoutKeys are an endpoint's timeouts.
var timeoutKeys = section[*stream.Timeouts]{
	timeout("headers", "until the response's headers", func(t *stream.Timeouts) *time.Duration { return &t.Headers }),
	timeout("idle", "between two events of the stream", func(t *stream.Timeouts) *time.Duration { return &t.Idle }),
	timeout("total", "the whole response", func(t *stream.Timeouts) *time.Duration { return &t.Total }),
}

func timeout(name, doc string, at func(*stream.Timeouts) *time.Duration) row[*stream.Timeouts] {
	return row[*stream.Timeouts]{name, doc, func(p *configParser, t *stream.Timeouts, v *yaml.Node, key string) {
		d, err := parseDuration(v.Value)
		if err != nil {
			p.errf(v, key, "%v", err)
		}
		*at(t) = d
	}}
}

func (p *configParser) endpoint(cfg *Config, name string, n *yaml.Node) stream.Endpoint {
	key := "endpoints." + name
	e := &endpointAt{Endpoint: stream.Endpoint{Name: name, Timeouts: stream.DefaultTimeouts, Kind: stream.KindOpenAI}, cfg: cfg}
	p.checkName(n, key, name)
	endpointKeys.parse(p, n, key, e)
	if e.srv != nil {
		if cfg.Servers == nil {
			cfg.Servers = map[string]server.Config{}
		}
		cfg.Servers[name] = *e.srv
	}
	ep := e.Endpoint
	switch {
	case ep.AnthropicVersion != "" && ep.API != stream.APIMessages:
		p.errf(n, key+".anthropic_version", "only for api: messages (this endpoint's api is %s)", ep.API.Or())
	case ep.MaxTokensParam != "" && ep.API.Or() != stream.APIChat:
		p.errf(n, key+".max_tokens_param", "only for api: chat (api %s names its own cap)", ep.API)
	}
	switch {
	case e.isSim && ep.BaseURL != "":
		p.errf(n, key, "set either base_url or sim, not both")
	case e.isSim:
		ep.Simulated = true
		if !e.kindSet {
			ep.Kind = stream.KindVLLM // the simulator takes vLLM's extra parameters
		}
		if ep.Model == "" {
			ep.Model = "sim"
		}
	case ep.BaseURL == "":
		p.errf(n, key+".base_url", "missing (e.g. https://api.openai.com/v1, or sim: \"\" for the built-in simulator)")
	case ep.Model == "":
		p.errf(n, key+".model", "missing: name the model to ask")
	}
	return ep
}

// maxPrice bounds a price (per million tokens, or per hour): far above any
// real one, low enough that a cost over a million requests stays a
// finite number in every report.
const maxPrice = 1e6

// priceAt is a price as its keys are read: which per-token prices were
// written.
type priceAt struct {
	report.Price
	in, out bool
}

// priceKeys are a price's keys.
var priceKeys = section[*priceAt]{
	perPrice("input_per_mtok", "per million prompt tokens", func(pr *priceAt, f float64) { pr.InputPerMTok, pr.in = f, true }),
	perPrice("output_per_mtok", "per million output tokens", func(pr *priceAt, f float64) { pr.OutputPerMTok, pr.out = f, true }),
	perPrice("per_hour", "per hour of the server, whatever it serves", func(pr *priceAt, f float64) { pr.PerHour, pr.Hourly = f, true }),
	{"currency", "the price's currency (e.g. USD)", func(p *configParser, pr *priceAt, v *yaml.Node, key string) {
		pr.Currency = p.str(v, key)
		if !isCurrency(pr.Currency) {
			p.errf(v, key, "%q is not a currency (letters only, e.g. USD, EUR)", pr.Currency)
		}
	}},
}

// perPrice is a key of a price from 0 to maxPrice.
func perPrice(name, doc string, set func(pr *priceAt, f float64)) row[*priceAt] {
	return row[*priceAt]{name, doc, func(p *configParser, pr *priceAt, v *yaml.Node, key string) {
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > maxPrice {
			p.errf(v, key, "%q is not a price (want a number from 0 to %g, e.g. 0.15)", v.Value, float64(maxPrice))
			return
		}
		set(pr, f)
	}}
}

// price parses an endpoint's price: {input_per_mtok, output_per_mtok,
// currency} or {per_hour, currency}. A price that cannot be right (negative,
// both kinds, one per-token price without the other, no currency) is an
// error here, before any request, rather
// than a cost figure nobody can trust.
func (p *configParser) price(n *yaml.Node, key string) (report.Price, bool) {
	at := &priceAt{}
	before := len(p.errs)
	priceKeys.parse(p, n, key, at)
	pr, in, out := at.Price, at.in, at.out
	if n.Kind == yaml.MappingNode {
		switch {
		case (in || out) && pr.Hourly:
			p.errf(n, key, "set per-token prices (input_per_mtok, output_per_mtok) or per_hour, not both")
		case !in && !out && !pr.Hourly:
			p.errf(n, key, "no price: set input_per_mtok and output_per_mtok (per million tokens), or per_hour")
		case in && !out:
			// A missing price is not a price of 0: the cost would leave out
			// every output token. A free direction is written as 0.
			p.errf(n, key+".output_per_mtok", "missing: a per-token price needs input_per_mtok and output_per_mtok (write 0 for free)")
		case out && !in:
			p.errf(n, key+".input_per_mtok", "missing: a per-token price needs input_per_mtok and output_per_mtok (write 0 for free)")
		}
		if pr.Currency == "" {
			p.errf(n, key+".currency", "missing: name the currency of the price (e.g. USD)")
		}
	}
	return pr, len(p.errs) == before
}

func isCurrency(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}
