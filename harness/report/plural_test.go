package report

import "testing"

// TestPlural: one is singular, every other count plural, zero included.
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 levels", 1: "1 level", 2: "2 levels"} {
		if got := Plural(n, "level", "levels"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
