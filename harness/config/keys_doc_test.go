package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/internal/modroot"
)

// TestConfigKeysDocumented: the reference in docs/configuration.md shows every
// key of every section table, and no key that is not one, so that a key
// cannot ship undocumented, nor the reference show one that is gone. A key
// counts as shown where the reference writes it, in a commented-out line
// ("# duration: 30m") or as the alternative its section's line comment
// gives ("price: {…}   # or {per_hour: 2.50, currency: USD}").
func TestConfigKeysDocumented(t *testing.T) {
	shown := referenceKeys(t)
	for _, s := range referenceSections() {
		name := s.at
		if name == "" {
			name = "the top level"
		}
		if len(shown[s.at]) == 0 {
			t.Errorf("docs/configuration.md's reference shows no key of %s", name)
		}
		for i, k := range s.keys {
			if s.some || slices.Contains(shown[s.at], k) {
				continue
			}
			hint := ""
			if s.docs != nil {
				hint = "   # " + s.docs[i]
			}
			t.Errorf("docs/configuration.md's reference does not show %s's key %s: add it, e.g. \"%s: …%s\"", name, k, k, hint)
		}
		for _, k := range shown[s.at] {
			if !slices.Contains(s.keys, k) {
				t.Errorf("docs/configuration.md's reference shows %s in %s, which is not a key there (the keys: %s)", k, name, strings.Join(s.keys, ", "))
			}
		}
	}
}

// A referenceSection is a section of the file: where it is in the
// reference ("endpoints.*" for any endpoint's keys) and its keys.
type referenceSection struct {
	at         string
	keys, docs []string // docs: each key's doc line, for the hint (nil: none)
	some       bool     // only the keys shown are checked
}

// referenceSections are the file's sections, each read from its table.
func referenceSections() []referenceSection {
	logFields := make([]string, len(logFieldKeys))
	for i, k := range logFieldKeys {
		logFields[i] = k.key
	}
	return []referenceSection{
		{at: "", keys: fileKeys.names(), docs: fileKeys.docs()},
		{at: "endpoints.*", keys: endpointKeys.names(), docs: endpointKeys.docs()},
		{at: "endpoints.*.timeouts", keys: timeoutKeys.names(), docs: timeoutKeys.docs()},
		{at: "endpoints.*.price", keys: priceKeys.names(), docs: priceKeys.docs()},
		{at: "endpoints.*.server_metrics", keys: serverMetricsKeys.names(), docs: serverMetricsKeys.docs()},
		{at: "scenarios.*", keys: scenarioKeys.names(), docs: scenarioKeys.docs()},
		{at: "scenarios.*.endpoints.*", keys: endpointScenarioKeys.names(), some: true},
		{at: "scenarios.*.capacity", keys: capacityKeys},
		{at: "scenarios.*.sweep", keys: sweepKeys.names(), docs: sweepKeys.docs()},
		{at: "gate", keys: gateKeys.names(), docs: gateKeys.docs()},
		{at: "gate.alpha", keys: gateFamilies},
		{at: "budget", keys: budgetKeys.names(), docs: budgetKeys.docs()},
		{at: "judge", keys: judgeKeys.names(), docs: judgeKeys.docs()},
		{at: "logs", keys: logsKeys.names(), docs: logsKeys.docs()},
		{at: "logs.fields", keys: logFields, some: true}, // docs/traces.md lists them all
	}
}

// unknownKey is an example error of configuration.md's: "sla.yaml:5:
// endpoints.a.modle: unknown key (allowed: base_url, …)".
var unknownKey = regexp.MustCompile(`(?m)^\S+:\d+: (\S+): unknown key \(allowed: ([^)]*)\)$`)

// TestConfigErrorExamplesListKeys: the unknown-key errors
// docs/configuration.md shows list the keys their section has today.
func TestConfigErrorExamplesListKeys(t *testing.T) {
	_, errs, _ := strings.Cut(readConfigurationMD(t), "\n## Errors\n")
	examples := unknownKey.FindAllStringSubmatch(errs, -1)
	if len(examples) == 0 {
		t.Fatal("docs/configuration.md's Errors section shows no unknown-key error")
	}
	for _, m := range examples {
		at := sectionOf(m[1])
		i := slices.IndexFunc(referenceSections(), func(s referenceSection) bool { return s.at == at })
		if i < 0 {
			t.Errorf("docs/configuration.md's error for %s: no section %q", m[1], at)
			continue
		}
		if want := strings.Join(referenceSections()[i].keys, ", "); m[2] != want {
			t.Errorf("docs/configuration.md's error for %s lists\n%s\nbut the keys are\n%s", m[1], m[2], want)
		}
	}
}

// named reports whether the keys of the mapping at at are names
// (endpoints:, scenarios:, a scenario's endpoints:), not keys.
func named(at string) bool {
	return at == "endpoints" || at == "scenarios" || strings.HasSuffix(at, ".endpoints")
}

// sectionOf is the section of the key at path, as referenceSections names
// it: endpoints.a.modle → endpoints.*.
func sectionOf(path string) string {
	parts := strings.Split(path, ".")
	at := ""
	for _, part := range parts[:len(parts)-1] {
		if named(at) {
			part = "*"
		}
		at = strings.TrimPrefix(at+"."+part, ".")
	}
	return at
}

// docs are the section's doc lines, in order.
func (s section[T]) docs() []string {
	out := make([]string, len(s))
	for i, k := range s {
		out[i] = k.doc
	}
	return out
}

var (
	// commentedKey is a commented-out line of the reference: "# key: …".
	commentedKey = regexp.MustCompile(`(?m)^(\s*)# ([a-z_]+:)`)
	// alternative is a mapping a line comment offers instead: "or {k: v}".
	alternative = regexp.MustCompile(`\{([^}]*)\}`)
	mappingKey  = regexp.MustCompile(`(\w+):`)
)

// referenceKeys are the keys the reference shows, by where: "" for the
// top level, "endpoints.*" for any endpoint's, "scenarios.*.capacity", ….
func referenceKeys(t *testing.T) map[string][]string {
	t.Helper()
	_, block, ok := strings.Cut(readConfigurationMD(t), "\n## Reference (`sla.yaml`)\n")
	if ok {
		_, block, ok = strings.Cut(block, "\n```yaml\n")
	}
	block, _, closed := strings.Cut(block, "\n```")
	if !ok || !closed {
		t.Fatal("docs/configuration.md has no ```yaml block after \"## Reference (`sla.yaml`)\"")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(commentedKey.ReplaceAllString(block, "$1$2")), &doc); err != nil || len(doc.Content) == 0 {
		t.Fatalf("docs/configuration.md's reference, its commented-out keys switched on, is not YAML: %v", err)
	}
	out := map[string][]string{}
	add := func(at, k string) {
		if !slices.Contains(out[at], k) {
			out[at] = append(out[at], k)
		}
	}
	var walk func(n *yaml.Node, at string)
	walk = func(n *yaml.Node, at string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			child := strings.TrimPrefix(at+"."+k.Value, ".")
			if named(at) {
				child = at + ".*"
			} else {
				add(at, k.Value)
			}
			for _, m := range alternative.FindAllStringSubmatch(k.LineComment+v.LineComment, -1) {
				for _, km := range mappingKey.FindAllStringSubmatch(m[1], -1) {
					add(child, km[1])
				}
			}
			walk(v, child)
		}
	}
	walk(doc.Content[0], "")
	return out
}

// readConfigurationMD is the text of docs/configuration.md.
func readConfigurationMD(t *testing.T) string {
	t.Helper()
	root, err := modroot.FromWD()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
