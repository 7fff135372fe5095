package load

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseClosed reads "1,4" as closed-loop levels of 1 and 4 in flight.
func ParseClosed(s string) ([]Pacer, error) {
	var out []Pacer
	for _, f := range strings.Split(s, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 {
			return nil, fmt.Errorf("%q is not a concurrency ≥ 1", f)
		}
		out = append(out, Closed(c))
	}
	return out, nil
}
