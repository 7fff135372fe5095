package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/secret"
	"github.com/llmsla/llmsla/harness/stream"
	openai "github.com/sashabaranov/go-openai"
)

// preflightTimeout bounds the models list of a preflight: a server that
// does not answer it in this time is asked the tiny request anyway.
const preflightTimeout = 5 * time.Second

// Preflight checks every endpoint before a run sends anything: its models
// list (GET …/models) and one tiny request (one token). An endpoint that
// refuses the connection, rejects the key, has no such model or path (404),
// or does not speak the protocol would fail every request of the run
// alike: each is an error, naming the endpoint, the error kind and the
// server's own message, with a hint where one helps (a base URL without
// /v1, a model the server does not list). Any other failure of the tiny
// request (a 400, a 5xx, a timeout: what load or a flaky server can cause)
// is a warning, and the run goes on. Both join one line per endpoint.
func (s *Session) Preflight(ctx context.Context) (warnings, err error) {
	var errs, warns []error
	eps := s.cfg.Endpoints
	if set := s.concerns.Judge.Settings(); set != nil && !set.AllowSelf {
		eps = append(slices.Clip(eps), set.Endpoint) // the judge is asked too
	}
	for _, ep := range eps {
		fatal, msg := preflight(ctx, ep, s.eps.clients[ep.Name], s.secrets)
		switch {
		case msg == nil:
		case fatal:
			errs = append(errs, msg)
		default:
			warns = append(warns, msg)
		}
	}
	return errors.Join(warns...), errors.Join(errs...)
}

// fatalPreflight is whether a tiny request's failure says every request of
// the run would fail alike.
func fatalPreflight(s *sample.Sample) bool {
	switch s.ErrKind {
	case sample.KindConnRefused, sample.KindAuth, sample.KindProtocol:
		return true
	}
	return s.Status == 404
}

func preflight(ctx context.Context, ep stream.Endpoint, c *stream.Client, secrets *secret.Set) (fatal bool, err error) {
	listed, listErr := models(ctx, c, secrets)
	tiny := c.Do(ctx, stream.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Say OK."}}, MaxTokens: 1})
	if tiny.OK() {
		return false, nil
	}
	why := tiny.Err // the kind, the status and the server's message
	if why == "" {
		why = string(tiny.ErrKind)
	}
	msg := fmt.Sprintf("endpoint %s (%s): the first request failed: %s", ep.Name, host(ep), why)
	var hints []string
	if tiny.Status == 404 && !strings.Contains(pathOf(ep.BaseURL), "/v1") {
		hints = append(hints, fmt.Sprintf("the base URL's path has no /v1: an OpenAI-compatible API is usually at %s/v1", strings.TrimRight(stream.RedactURL(ep.BaseURL), "/")))
	}
	if listErr == nil && len(listed) > 0 && !slices.Contains(listed, ep.Model) {
		shown := listed[:min(len(listed), 10)]
		hints = append(hints, fmt.Sprintf("model %q is not among the %d the server lists (%s)", ep.Model, len(listed), strings.Join(shown, ", ")))
	}
	if tiny.ErrKind == sample.KindConnRefused {
		hints = append(hints, "nothing listens there: is the server running?")
	}
	if len(hints) > 0 {
		msg += "; " + strings.Join(hints, "; ")
	}
	return fatalPreflight(&tiny), errors.New(secrets.Redact(msg))
}

// models lists the model ids the endpoint's server names (GET …/models),
// at most maxListed of them.
func models(ctx context.Context, c *stream.Client, secrets *secret.Set) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	b, _, err := c.Fetch(ctx, c.Below("models"), nil, 1<<20)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range list.Data[:min(len(list.Data), maxListed)] {
		ids = append(ids, secrets.Redact(m.ID))
	}
	return ids, nil
}

// maxListed bounds the model ids a preflight keeps of a server's list.
const maxListed = 10_000

// Latency is how long one request of the cell takes: its fixture's first
// case with the scenario's max tokens, sent once, not recorded — the probe
// a plan's expected duration is computed from. The cell's Level is not
// used.
func (s *Session) Latency(ctx context.Context, c Cell) (time.Duration, error) {
	p := load.MaxTokens(c.Fixture, c.Settings.MaxTokens).Prompt(0)
	smp := s.eps.clients[c.Endpoint.Name].Do(ctx, p.Request)
	if !smp.OK() {
		return 0, fmt.Errorf("%s endpoint=%s: probe: %s: %s%s", c.Scenario, c.Endpoint.Name, smp.ErrKind, smp.Err, toolsHint(p, smp))
	}
	return smp.Total, nil
}

// toolsHint says what to do when a request that offers tools is refused
// as the client's error: the model or server does not take tools (Ollama
// refuses a model whose chat template has none), which no other setting
// of the scenario changes.
func toolsHint(p load.Prompt, smp sample.Sample) string {
	if len(p.Request.Tools) == 0 || smp.ErrKind != sample.KindClientError {
		return ""
	}
	return " — the scenario's cases offer tools (function calling), which this model or server refused: measure the other scenarios with -bench (e.g. bin/llmsla bench -bench 'Chat|Extraction|Summary|Batch|Conversation'), or serve a model that takes tools"
}

func host(ep stream.Endpoint) string {
	if ep.Simulated {
		return "the built-in simulator"
	}
	if u, err := url.Parse(ep.BaseURL); err == nil {
		return u.Host
	}
	return "an unparsable URL"
}

func pathOf(base string) string {
	if u, err := url.Parse(base); err == nil {
		return u.Path
	}
	return ""
}
