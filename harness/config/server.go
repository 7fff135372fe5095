package config

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/server"
)

var serverMetricsKeys = []string{"url", "every"}

// server reads one of an endpoint's server keys into cfg.Servers.
func (p *configParser) server(cfg *Config, endpoint, k string, v *yaml.Node, key string) {
	if cfg.Servers == nil {
		cfg.Servers = map[string]server.Config{}
	}
	srv := cfg.Servers[endpoint]
	switch k {
	case "server_metrics":
		p.serverMetrics(&srv, v, key)
	case "server_pid":
		srv.PID = p.count(v, key, 1, math.MaxInt32)
	case "exclusive":
		p.exclusive(&srv, v, key)
	}
	cfg.Servers[endpoint] = srv
}

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
	p.mapping(n, key, serverMetricsKeys, func(k string, v *yaml.Node) {
		k2 := key + "." + k
		switch k {
		case "url":
			srv.URL = p.str(v, k2)
			if err := checkURL(srv.URL); err != nil {
				p.errf(v, k2, "%v", err)
			}
		case "every":
			d, err := parseDuration(v.Value)
			if err == nil && (d < 10*time.Millisecond || d > time.Hour) {
				err = fmt.Errorf("%s: want a duration from 10ms to 1h (e.g. 1s)", v.Value)
			}
			if err != nil {
				p.errf(v, k2, "%v", err)
			}
			srv.Every = d
		}
	})
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
