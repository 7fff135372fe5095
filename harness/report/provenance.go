package report

import (
	"io"
	"strings"

	"github.com/llmsla/llmsla/harness/sample"
)

// Provenance writes at the top of a verdict or a report what the run
// measured beyond its figures (sample.Provenance): one line per group of
// keys — the client, the requests, each endpoint, each scenario — each
// key=value, content hashes cut to 12 hex digits; or that the run
// recorded none.
func Provenance(w io.Writer, p sample.Provenance) {
	for _, l := range ProvenanceLines(p) {
		say(w, "%s", l)
	}
}

// ProvenanceLines are the lines Provenance writes.
func ProvenanceLines(p sample.Provenance) []string {
	if p["client.go"] == "" {
		return []string{"provenance: not recorded (a run from before llmsla recorded it, or a test binary run by hand): model, digest, server and fixture unknown"}
	}
	out := []string{"provenance (what was measured; llmsla gate refuses a baseline that differs in what defines it):"}
	var group string
	var parts []string
	flush := func() {
		if len(parts) > 0 {
			out = append(out, "  "+group+": "+strings.Join(parts, ", "))
		}
	}
	for _, k := range p.Keys() {
		g, rest := provenanceGroup(k)
		if g != group {
			flush()
			group, parts = g, nil
		}
		v := p[k]
		if h, ok := strings.CutPrefix(v, "sha256:"); ok && len(h) > 12 {
			v = "sha256:" + h[:12]
		}
		parts = append(parts, rest+"="+v)
	}
	flush()
	return out
}

// provenanceGroup splits a key into its group (client, request,
// endpoint.NAME, scenario.NAME) and the rest.
func provenanceGroup(k string) (group, rest string) {
	head, tail, _ := strings.Cut(k, ".")
	if head != "endpoint" && head != "scenario" {
		return head, tail
	}
	name, rest, ok := strings.Cut(tail, ".")
	if !ok {
		return head, tail
	}
	return head + " " + name, rest
}
