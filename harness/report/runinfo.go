package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/report/junit"
	"github.com/llmsla/llmsla/harness/sample"
)

// RunInfo says what a report is a report of: the commit that measured,
// when the run started, the configuration, and each endpoint with the
// model that answered and the host it was sent to. A report without it
// could be of any run; with it, a page or a CI result names its run.
type RunInfo struct {
	// Commit is the commit of the recording ("abc123", "abc123-dirty"),
	// "" when no results file beside the samples says it.
	Commit string
	// Start is the earliest t0 of a measured request, End the latest end
	// of one; zero when there is none.
	Start, End time.Time
	// Config is where the configuration came from (a file, or the
	// environment).
	Config    string
	Endpoints []EndpointInfo
}

// EndpointInfo is one endpoint a run measured.
type EndpointInfo struct {
	Name string
	// Models are the models that answered its requests (the answers'
	// own, else the one asked), in name order: one, unless the endpoint
	// routes.
	Models []string
	// Host is where its requests went ("api.openai.com", "built-in
	// simulator"), as the recording says, "" when nothing says.
	Host string
}

// NewRunInfo reads what the samples say of their run: its window and each
// endpoint's models. hosts gives the host of an endpoint by name (nil:
// none known); the caller sets Commit and Config.
func NewRunInfo(samples []sample.Sample, hosts func(endpoint string) string) RunInfo {
	var info RunInfo
	models := map[string][]string{}
	var names []string
	for i := range samples {
		s := &samples[i]
		if _, ok := models[s.Endpoint]; !ok {
			models[s.Endpoint] = nil
			names = append(names, s.Endpoint)
		}
		if s.Model != "" && !slices.Contains(models[s.Endpoint], s.Model) {
			models[s.Endpoint] = append(models[s.Endpoint], s.Model)
		}
		if s.Warmup || s.Start.IsZero() {
			continue
		}
		if info.Start.IsZero() || s.Start.Before(info.Start) {
			info.Start = s.Start
		}
		if end := s.Start.Add(s.Total); end.After(info.End) {
			info.End = end
		}
	}
	slices.Sort(names)
	for _, n := range names {
		ms := models[n]
		slices.Sort(ms)
		e := EndpointInfo{Name: n, Models: ms}
		if hosts != nil {
			e.Host = hosts(n)
		}
		info.Endpoints = append(info.Endpoints, e)
	}
	return info
}

// String says an endpoint as a header line does: "prod: model gpt-4o-mini
// at api.openai.com".
func (e EndpointInfo) String() string {
	model := "model not recorded"
	switch len(e.Models) {
	case 0:
	case 1:
		model = "model " + e.Models[0]
	default:
		model = "models " + strings.Join(e.Models, ", ")
	}
	// Names come from the recording: escaped for whatever shows them.
	if e.Host == "" {
		return escape.Text(e.Name + ": " + model)
	}
	return escape.Text(fmt.Sprintf("%s: %s at %s", e.Name, model, e.Host))
}

// CommitText is the commit, or why there is none.
func (r RunInfo) CommitText() string {
	if r.Commit == "" {
		return "not recorded (no results file beside the samples names it)"
	}
	return escape.Text(r.Commit)
}

// Properties are the run as JUnit properties: commit, config, start and
// one endpoint.NAME per endpoint.
func (r RunInfo) Properties() []junit.Property {
	props := []junit.Property{{Name: "commit", Value: r.CommitText()}, {Name: "config", Value: r.Config}}
	if !r.Start.IsZero() {
		props = append(props, junit.Property{Name: "start", Value: r.Start.UTC().Format(time.RFC3339)})
	}
	for _, e := range r.Endpoints {
		props = append(props, junit.Property{Name: "endpoint." + e.Name, Value: strings.TrimPrefix(e.String(), e.Name+": ")})
	}
	return props
}
