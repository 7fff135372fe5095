package report

import "fmt"

// Plural is "1 one" or "n many": every count a command or a report says
// in words ("1 level", "3 levels").
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
