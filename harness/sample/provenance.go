package sample

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/escape"
)

// Provenance is what a run measured beyond its figures, as flat keys and
// values: per endpoint the model and the server behind its name
// ("endpoint.prod.model.digest"), per scenario its fixture's content and
// the requests' parameters ("scenario.chat.fixture.sha256"), and the
// client that measured ("client.cpu"). A run records it twice: as benchfmt
// configuration lines at the top of its results file (Lines), which
// benchstat shows and the gate compares, and as the first line of its
// samples file (Record), which verdicts and reports show. Keys follow
// benchfmt's rule for configuration keys (lower case, no space, no ':'),
// values are printable text on one line: Check holds a record read from a
// file to both, and to MaxProvenanceKeys.
type Provenance map[string]string

// Bounds of a provenance record: far beyond what llmsla writes (some ten
// keys an endpoint and a scenario), near enough that a forged record
// cannot fill memory or a terminal.
const (
	MaxProvenanceKeys  = 4096
	MaxProvenanceKey   = 200
	MaxProvenanceValue = 512
)

// ProvenanceKey joins parts into a key, each part lower-cased and every
// byte a benchfmt key may not hold (anything but a–z, 0–9 and . _ - / +)
// written as "_": an endpoint named "Prod EU" is "endpoint.prod_eu".
func ProvenanceKey(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		for _, r := range strings.ToLower(p) {
			if keyRune(r) {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

func keyRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/+", r)
}

// Set sets the key of parts to v, as a value may be written: escaped to
// one printable line (escape.Text), trimmed, and cut at
// MaxProvenanceValue bytes with "…". An empty value sets nothing: unknown
// is the key's absence, as benchfmt reads an empty configuration value.
func (p Provenance) Set(v string, parts ...string) {
	v = strings.TrimSpace(escape.Text(v))
	if len(v) > MaxProvenanceValue {
		cut := MaxProvenanceValue - len("…")
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		v = v[:cut] + "…"
	}
	if v != "" {
		p[ProvenanceKey(parts...)] = v
	}
}

// Keys are p's keys in order.
func (p Provenance) Keys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Check reports what makes p a record llmsla did not write: more than
// MaxProvenanceKeys keys, a key that is not a benchfmt configuration key
// (lower case a–z, 0–9, . _ - / +, starting with a letter) or is longer
// than MaxProvenanceKey, a value empty, not on one printable line, padded
// with spaces or longer than MaxProvenanceValue.
func (p Provenance) Check() error {
	if len(p) > MaxProvenanceKeys {
		return fmt.Errorf("provenance: %d keys (allowed: at most %d)", len(p), MaxProvenanceKeys)
	}
	for _, k := range p.Keys() {
		switch {
		case len(k) > MaxProvenanceKey:
			return fmt.Errorf("provenance: key %q: %d bytes (allowed: at most %d)", escape.Text(k[:MaxProvenanceKey]), len(k), MaxProvenanceKey)
		case k == "" || k[0] < 'a' || k[0] > 'z' || strings.IndexFunc(k, func(r rune) bool { return !keyRune(r) }) >= 0:
			return fmt.Errorf("provenance: key %q (allowed: a–z first, then a–z, 0–9 and . _ - / +)", escape.Text(k))
		}
		v := p[k]
		if len(v) > MaxProvenanceValue {
			return fmt.Errorf("provenance: %s: %d bytes (allowed: at most %d)", k, len(v), MaxProvenanceValue)
		}
		if err := escape.CheckLine(v); err != nil {
			return fmt.Errorf("provenance: %s: %w", k, err)
		}
		if strings.TrimSpace(v) != v {
			return fmt.Errorf("provenance: %s: %q has spaces around it (allowed: trimmed, as benchfmt reads a value)", k, v)
		}
	}
	return nil
}

// Lines is p as benchfmt configuration lines ("key: value\n"), in key
// order.
func (p Provenance) Lines() string {
	var b strings.Builder
	for _, k := range p.Keys() {
		fmt.Fprintf(&b, "%s: %s\n", k, p[k])
	}
	return b.String()
}

// provenanceRecord is the first line of a samples file that has one.
type provenanceRecord struct {
	Provenance Provenance `json:"provenance"`
}

// provenancePrefix starts a provenance record as Record writes it; a
// line that starts otherwise is read as a sample.
var provenancePrefix = []byte(`{"provenance":`)

// Record is p as the line it takes in a samples file, newline included.
func (p Provenance) Record() []byte {
	b, err := json.Marshal(provenanceRecord{p})
	if err != nil {
		panic(err) // a map of strings: cannot fail
	}
	return append(b, '\n')
}

// parseProvenance reads a record line and checks it.
func parseProvenance(b []byte) (Provenance, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rec provenanceRecord
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("provenance record: %w", err)
	}
	if dec.More() {
		return nil, errors.New("provenance record: more than one JSON value on the line")
	}
	if rec.Provenance == nil {
		return nil, errors.New(`provenance record: no "provenance" object`)
	}
	return rec.Provenance, rec.Provenance.Check()
}

// CreateWithProvenance creates the samples file path, which must not
// exist, holding p's record as its first line (filter, when not nil,
// rewrites it first: the secrets redactor): llmsla bench writes it before
// the test binary appends its samples.
func CreateWithProvenance(path string, p Provenance, filter func([]byte) []byte) error {
	if err := p.Check(); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	b := p.Record()
	if filter != nil {
		b = filter(b)
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

// ReadProvenance reads the provenance records of samples files and
// directories (as ReadAll finds them) and merges them (Merge): nil when
// none has one (written before llmsla recorded it, or by a test binary
// run by hand). Only each file's first line is read.
func ReadProvenance(paths []string) (Provenance, error) {
	files, err := samplesFiles(paths)
	if err != nil {
		return nil, err
	}
	var all []Provenance
	for _, path := range files {
		p, err := firstProvenance(path)
		if err != nil {
			return nil, err
		}
		if p != nil {
			all = append(all, p)
		}
	}
	return Merge(all...), nil
}

// firstProvenance is the record on the first line of the file at path,
// nil when that line is a sample.
func firstProvenance(path string) (Provenance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := NewScanner(f, path)
	sc.Scan()
	if err := sc.Err(); err != nil && !errors.Is(err, ErrCut) && sc.line <= 1 {
		return nil, err
	}
	return sc.prov, nil
}

// Merge is the provenance of runs pooled (the shards of one run, the files
// of several): each key with its one value, or, where the runs differ,
// their values joined by " | " and marked as differing. nil for no run.
func Merge(ps ...Provenance) Provenance {
	if len(ps) == 0 {
		return nil
	}
	vals := map[string][]string{}
	for _, p := range ps {
		for k, v := range p {
			if !slices.Contains(vals[k], v) {
				vals[k] = append(vals[k], v)
			}
		}
	}
	out := Provenance{}
	for k, vs := range vals {
		if len(vs) == 1 {
			out[k] = vs[0]
			continue
		}
		out.Set(strings.Join(vs, " | ")+" (differs between the files pooled)", k)
	}
	return out
}

// Observe is what the responses of samples said of what answered, per
// endpoint: the models that answered (endpoint.NAME.response.model) and
// the system fingerprints (…response.system_fingerprint), each in the
// order first seen, and said to have changed during the run when there
// were several.
func Observe(samples []Sample) Provenance {
	type seen struct{ models, prints []string }
	by := map[string]*seen{}
	for i := range samples {
		s := &samples[i]
		e := by[s.Endpoint]
		if e == nil {
			e = &seen{}
			by[s.Endpoint] = e
		}
		if s.ResponseModel != "" && !slices.Contains(e.models, s.ResponseModel) {
			e.models = append(e.models, s.ResponseModel)
		}
		if s.SystemFingerprint != "" && !slices.Contains(e.prints, s.SystemFingerprint) {
			e.prints = append(e.prints, s.SystemFingerprint)
		}
	}
	out := Provenance{}
	for ep, e := range by {
		out.Set(changes(e.models), "endpoint", ep, "response", "model")
		out.Set(changes(e.prints), "endpoint", ep, "response", "system_fingerprint")
	}
	return out
}

// changes is one value, or several in order marked as a change.
func changes(vs []string) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	shown := vs
	more := ""
	if len(vs) > 3 {
		shown, more = vs[:3], fmt.Sprintf(" → %d more", len(vs)-3)
	}
	return strings.Join(shown, " → ") + more + " (changed during the run)"
}

// scanProvenance handles a provenance record the scanner met on its
// current line: allowed on the first line only, once.
func (sc *Scanner) scanProvenance(b []byte) error {
	if sc.line != 1 {
		return errors.New("a provenance record after the first line: llmsla writes it first, once")
	}
	p, err := parseProvenance(b)
	if err != nil {
		return err
	}
	sc.prov = p
	return nil
}

// Provenance is the file's provenance record, once Scan has read past its
// first line; nil when it has none.
func (sc *Scanner) Provenance() Provenance { return sc.prov }
