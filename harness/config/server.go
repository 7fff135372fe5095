package config

import (
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/server"
)

// serverMetrics reads an endpoint's server_metrics: a mapping of url and
// every, or off.
func (p *configParser) serverMetrics(srv *server.Config, n *yaml.Node, key string) {
	if n.Kind == yaml.ScalarNode && n.Value == "off" {
		srv.Off = true
		return
	}
	if n.Kind == yaml.ScalarNode {
		p.errf(n, key, "%q: want off, or a mapping {url: http://host:8000/metrics, every: 1s}", n.Value)
		return
	}
	serverMetricsKeys.parse(p, n, key, srv)
}

// serverMetricsKeys are server_metrics' keys.
var serverMetricsKeys = section[*server.Config]{
	{"url", "the server's /metrics", func(p *configParser, srv *server.Config, v *yaml.Node, key string) {
		srv.URL = p.str(v, key)
		if err := checkURL(srv.URL); err != nil {
			p.errf(v, key, "%v", err)
		}
	}},
	{"every", "how often it is read (and each reading's timeout)", func(p *configParser, srv *server.Config, v *yaml.Node, key string) {
		d, err := parseDuration(v.Value)
		if err == nil && (d < 10*time.Millisecond || d > time.Hour) {
			err = fmt.Errorf("%s: want a duration from 10ms to 1h (e.g. 1s)", v.Value)
		}
		if err != nil {
			p.errf(v, key, "%v", err)
		}
		srv.Every = d
	}},
}

func (p *configParser) exclusive(srv *server.Config, n *yaml.Node, key string) {
	b, err := strconv.ParseBool(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		p.errf(n, key, "%q: want true or false", n.Value)
	}
	srv.Exclusive = b
}

// exclusiveObjectives adds foreign_max: 0 to the objectives of a
// scenario on an exclusive endpoint that does not bound foreign load
// itself.
func exclusiveObjectives(o objective.Objectives) objective.Objectives {
	if o.Has("foreign") {
		return o
	}
	th, _ := objective.Parse("foreign_max", 0)
	return o.Set(th)
}
