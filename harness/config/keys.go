package config

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A row is one key of a section of the SLA file (the top level, an
// endpoint, a scenario, the judge: block, …), defined once: the section's
// parser reads it, its unknown-key error lists it, and the reference in
// docs/configuration.md shows it (TestConfigKeysDocumented). Adding a
// key is adding a row to its section.
type row[T any] struct {
	name string
	doc  string // what it sets, in a line
	// read sets into from v, the value at key (in full, e.g.
	// endpoints.prod.model), reporting each mistake with p.errf.
	read func(p *configParser, into T, v *yaml.Node, key string)
}

// A section is the keys of one mapping of the file, in the order its
// errors list them.
type section[T any] []row[T]

// names are the section's keys, in order.
func (s section[T]) names() []string {
	out := make([]string, len(s))
	for i, k := range s {
		out[i] = k.name
	}
	return out
}

// without is the section less the keys named.
func (s section[T]) without(names ...string) section[T] {
	return slices.DeleteFunc(slices.Clone(s), func(r row[T]) bool { return slices.Contains(names, r.name) })
}

// parse reads the mapping n, at the key path at, into into, each key by
// its row; a key that is no row is an error listing the section's.
func (s section[T]) parse(p *configParser, n *yaml.Node, at string, into T) {
	p.mapping(n, at, s.names(), func(k string, v *yaml.Node) { s.read(p, into, k, v, at) })
}

// read reads the value v of k, one of the section's keys, in the mapping
// at the key path at.
func (s section[T]) read(p *configParser, into T, k string, v *yaml.Node, at string) {
	i := slices.IndexFunc(s, func(r row[T]) bool { return r.name == k })
	s[i].read(p, into, v, strings.TrimPrefix(at+"."+k, "."))
}

// The kinds of value most keys take, each saying in its error what it
// allows.

// whole is a key of a whole number from min to max.
func whole[T any](name, doc string, min, max int, at func(T) *int) row[T] {
	return row[T]{name, doc, func(p *configParser, into T, v *yaml.Node, key string) { *at(into) = p.count(v, key, min, max) }}
}

// text is a key of a string.
func text[T any](name, doc string, at func(T) *string) row[T] {
	return row[T]{name, doc, func(p *configParser, into T, v *yaml.Node, key string) { *at(into) = p.str(v, key) }}
}
