package config

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/objective"
)

// casePass reads case_pass_min: {k: 3, pass: 3} (objective.ParseCasePass),
// reporting whether m is that key.
func (p *configParser) casePass(sc *Scenario, key, m string, v *yaml.Node) bool {
	if m != "case_pass_min" {
		return false
	}
	if v.Kind != yaml.MappingNode {
		p.errf(v, key, "want {k: N, pass: M}, e.g. {k: 3, pass: 3}: every case right each of 3 tries (pass^k)")
		return true
	}
	k, pass := 0, 0
	p.mapping(v, key, []string{"k", "pass"}, func(name string, n *yaml.Node) {
		x := p.count(n, key+"."+name, 1, objective.MaxCaseTries)
		if name == "k" {
			k = x
		} else {
			pass = x
		}
	})
	if k == 0 || pass == 0 {
		p.errf(v, key, "want both k and pass, e.g. {k: 3, pass: 3}")
		return true
	}
	th, err := objective.ParseCasePass(k, pass)
	if err != nil {
		p.errf(v, key, "%s", strings.TrimPrefix(err.Error(), m+": "))
		return true
	}
	sc.Objectives = sc.Objectives.Set(th)
	return true
}
