package recording

import (
	"fmt"
	"math"
	"strings"
)

// Num prints a figure — a median, an estimate — with about four
// significant digits, no exponent for everyday magnitudes: how the gate
// and compare show the values of a recording.
func Num(x float64) string {
	if x != 0 && (math.Abs(x) >= 1e7 || math.Abs(x) < 1e-3) {
		return fmt.Sprintf("%.4g", x)
	}
	s := fmt.Sprintf("%.4g", x)
	if strings.ContainsAny(s, "e") {
		return fmt.Sprintf("%.0f", x)
	}
	return s
}
