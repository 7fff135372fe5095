package docs

import (
	"strings"
	"testing"

	"github.com/llmsla/llmsla/harness/sim"
)

// TestSimKeysDocumented: configuration.md's simulator section names every
// key of a simulator spec (the keys sim.ParseSpec lists when given one it
// does not know), so that a new key cannot ship undocumented.
func TestSimKeysDocumented(t *testing.T) {
	_, err := sim.ParseSpec("no_such_key=1")
	if err == nil {
		t.Fatal("sim.ParseSpec accepted an unknown key")
	}
	_, list, ok := strings.Cut(err.Error(), "(allowed: ")
	list, _, closed := strings.Cut(list, ")")
	if !ok || !closed {
		t.Fatalf("sim.ParseSpec's error %q lists no allowed keys", err)
	}
	_, section, ok := strings.Cut(read(t, "docs/configuration.md"), "\n## The simulator\n")
	if !ok {
		t.Fatal("docs/configuration.md has no \"## The simulator\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	keys := strings.Split(list, ", ")
	for _, key := range keys {
		if !strings.Contains(section, "`"+key+"`") {
			t.Errorf("docs/configuration.md's simulator section does not name the spec key `%s`", key)
		}
	}
	if len(keys) < 20 {
		t.Errorf("read %d spec keys from %q: the list is cut", len(keys), list)
	}
}
