package provenance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmsla/llmsla/harness/recording"
	"github.com/llmsla/llmsla/harness/sample"
)

// Package provenance compares what two recorded runs measured, before any
// figure of theirs is: their provenance (sample.Provenance, the
// configuration lines of a results file and the models the samples say
// answered). A key that defines the measurement — the model and its
// digest, quantization, context, the server and its version, the fixture,
// schemas and system prompt, the request parameters, the cache policy —
// differing between BASE and NEW refuses the comparison (an error
// wrapping recording.ErrUnusable: exit 2) unless allow names its kind
// (llmsla gate -allow-change); keys that describe the client or drift on
// their own are listed.

// provKind is a kind of provenance key: the name -allow-change takes, the
// key's end (below endpoint.NAME or scenario.NAME) that marks it, and
// what to do when it differs.
type provKind struct {
	name, prefix, suffix string
	advice               string
}

const (
	adviceModel   = "a different model or server is a model comparison: llmsla ab or llmsla report"
	adviceFixture = "a different fixture asks other questions: re-record the baseline with it (make bench && make baseline)"
	adviceRequest = "other request parameters measure another workload: re-record the baseline with them (make bench && make baseline)"
)

// definingKinds are the keys that define what was measured, the most
// specific first.
var definingKinds = []provKind{
	{"model.digest", "endpoint.", ".model.digest", adviceModel},
	{"model.id", "endpoint.", ".model.id", adviceModel},
	{"model.quantization", "endpoint.", ".model.quantization", adviceModel},
	{"model.parameter_size", "endpoint.", ".model.parameter_size", adviceModel},
	{"model.family", "endpoint.", ".model.family", adviceModel},
	{"model.format", "endpoint.", ".model.format", adviceModel},
	{"model.context_length", "endpoint.", ".model.context_length", adviceModel},
	{"response.model", "endpoint.", ".response.model", adviceModel},
	{"server.kind", "endpoint.", ".server.kind", adviceModel},
	{"server.version", "endpoint.", ".server.version", adviceModel},
	{"max_tokens_param", "endpoint.", ".request.max_tokens_param", adviceRequest},
	{"model", "endpoint.", ".model", adviceModel},
	{"fixture", "scenario.", ".fixture.sha256", adviceFixture},
	{"system", "scenario.", ".system.sha256", adviceFixture},
	{"structured", "scenario.", ".structured", adviceFixture},
	{"temperature", "scenario.", ".temperature", adviceRequest},
	{"top_p", "scenario.", ".top_p", adviceRequest},
	{"seed", "scenario.", ".seed", adviceRequest},
	{"max_tokens", "scenario.", ".max_tokens", adviceRequest},
	{"cache", "scenario.", ".cache", adviceRequest},
	{"prefix_tokens", "scenario.", ".prefix_tokens", adviceRequest},
	{"stream_options", "request.", "stream_options", adviceRequest},
	{"stream", "request.", "stream", adviceRequest},
}

// schemaKind marks a schema's hash: scenario.NAME.schema.FILE.sha256.
var schemaKind = provKind{"schema", "scenario.", ".sha256", adviceFixture}

// ignoredKeys are configuration lines that say when and how a run was
// recorded, not what it measured, or repeat a client.* key (go test's
// own goos, goarch, cpu, pkg); so are the config.* keys (the SLA file and
// its digest: what the run is judged against, config.Config.Record).
var ignoredKeys = []string{"date", "count", "config", "shard", "commit", "pkg", "goos", "goarch", "cpu"}

// kindOf is the defining kind of key, nil for a key that describes.
func kindOf(key string) *provKind {
	if strings.HasPrefix(key, "scenario.") && strings.Contains(key, ".schema.") && strings.HasSuffix(key, ".sha256") {
		return &schemaKind
	}
	for i := range definingKinds {
		k := &definingKinds[i]
		if strings.HasPrefix(key, k.prefix) && strings.HasSuffix(key, k.suffix) && len(key) > len(k.prefix)+len(k.suffix) ||
			key == k.prefix+k.suffix {
			return k
		}
	}
	return nil
}

// Change is one key whose value differs between BASE and NEW
// ("" on the side that does not know it).
type Change struct {
	Key, Base, New string
	Kind           string // the defining kind (model.digest, fixture, …), "" for a key that describes
}

func (c Change) String() string {
	return fmt.Sprintf("%s: %s → %s", c.Key, orUnknown(c.Base), orUnknown(c.New))
}

func orUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}

// Check is what comparing two runs' provenance found.
type Check struct {
	// Changed are the defining keys that differ, each allowed by
	// Compare's allow: a report starts with them.
	Changed []Change
	// Drifted are the keys that describe the client or drift on their own
	// (client.cpu, system_fingerprint) and differ: listed, never refused.
	Drifted []Change
	// OneSide are defining keys only one side knows: whether they changed
	// cannot be told.
	OneSide []Change
	// Missing names the sides that recorded no provenance (a run recorded
	// before llmsla did): compared with a warning.
	Missing []string
}

// AllowChangeNames are the names -allow-change takes.
func AllowChangeNames() []string {
	out := []string{schemaKind.name}
	for _, k := range definingKinds {
		out = append(out, k.name)
	}
	slices.Sort(out)
	return out
}

// checkAllowChange refuses a name that is no defining kind: it would
// allow nothing.
func checkAllowChange(names []string) error {
	known := AllowChangeNames()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return fmt.Errorf("allow-change %q: not a kind of provenance key, so it allows nothing (allowed: %s)", n, strings.Join(known, ", "))
		}
	}
	return nil
}

// Compare compares base's provenance with new's. A defining
// key whose values differ and that allow does not name is an error
// wrapping recording.ErrUnusable that names each such key, both values
// and what to do.
func Compare(baseName, newName string, base, new sample.Provenance, allow []string) (Check, error) {
	var c Check
	if err := checkAllowChange(allow); err != nil {
		return c, err
	}
	for _, side := range []struct {
		name string
		p    sample.Provenance
	}{{baseName, base}, {newName, new}} {
		if !recorded(side.p) {
			c.Missing = append(c.Missing, side.name)
		}
	}
	var refused []string
	for _, key := range unionKeys(base, new) {
		if slices.Contains(ignoredKeys, key) || strings.HasPrefix(key, "config.") {
			continue
		}
		b, n := base[key], new[key]
		if b == n {
			continue
		}
		ch := Change{Key: key, Base: b, New: n}
		kind := kindOf(key)
		switch {
		case kind == nil:
			c.Drifted = append(c.Drifted, ch)
		case b == "" || n == "":
			ch.Kind = kind.name
			c.OneSide = append(c.OneSide, ch)
		case slices.Contains(allow, kind.name):
			ch.Kind = kind.name
			c.Changed = append(c.Changed, ch)
		default:
			refused = append(refused, fmt.Sprintf("%s differs: %s has %s, %s has %s — %s; to gate across it anyway: -allow-change %s",
				key, baseName, b, newName, n, kind.advice, kind.name))
		}
	}
	if len(refused) > 0 {
		return c, fmt.Errorf("%w: %s and %s did not measure the same thing (provenance, compared before any figure):\n\t%s",
			recording.ErrUnusable, baseName, newName, strings.Join(refused, "\n\t"))
	}
	return c, nil
}

// recorded reports whether p is a provenance llmsla recorded (it always
// has the client's Go version), not only the lines every results file has.
func recorded(p sample.Provenance) bool { return p["client.go"] != "" }

func unionKeys(a, b sample.Provenance) []string {
	keys := a.Keys()
	for _, k := range b.Keys() {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// WriteHead writes what changed that -allow-change let through:
// the first lines of the report.
func (c *Check) WriteHead(b *strings.Builder) {
	for _, ch := range c.Changed {
		fmt.Fprintf(b, "CHANGED (-allow-change %s) %s\n", ch.Kind, ch)
	}
}

// WriteTail writes, under the verdict, the keys that drift, those one
// side does not know, and the sides without provenance.
func (c *Check) WriteTail(b *strings.Builder) {
	for _, ch := range c.Drifted {
		fmt.Fprintf(b, "provenance: %s (describes the client or drifts on its own: not refused)\n", ch)
	}
	for _, ch := range c.OneSide {
		fmt.Fprintf(b, "provenance: %s (known on one side only: whether it changed cannot be told)\n", ch)
	}
	if len(c.Missing) > 0 {
		fmt.Fprintf(b, "warning: %s recorded no provenance (a run from before llmsla recorded it): what was measured — model, digest, fixture, parameters — was not compared; re-record it (make bench && make baseline)\n",
			strings.Join(c.Missing, " and "))
	}
}
