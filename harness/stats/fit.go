package stats

import "math"

// Point is one request's prompt length and TTFT, for the prefill fit.
type Point struct{ PromptTokens, TTFT float64 } // tokens, ms

// Fit is the least-squares line TTFT = A + B · prompt tokens over a
// prompt-length sweep (METRICS.md, prefill cost): B is the prefill cost per
// prompt token in ms, with its standard error, and A what is left at zero
// length (network, queue, scheduling).
type Fit struct {
	A, B, BErr float64 // ms, ms per token, ms per token
	N          int
}

// PerKTok is the prefill cost in ms per 1,000 prompt tokens.
func (f Fit) PerKTok() float64 { return 1000 * f.B }

// LinearFit fits pts; N < 3 or a single prompt length gives NaN figures.
func LinearFit(pts []Point) Fit {
	f := Fit{N: len(pts), A: math.NaN(), B: math.NaN(), BErr: math.NaN()}
	if len(pts) < 3 {
		return f
	}
	var mx, my float64
	for _, p := range pts {
		mx += p.PromptTokens
		my += p.TTFT
	}
	n := float64(len(pts))
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for _, p := range pts {
		sxx += (p.PromptTokens - mx) * (p.PromptTokens - mx)
		sxy += (p.PromptTokens - mx) * (p.TTFT - my)
	}
	if sxx == 0 {
		return f
	}
	f.B = sxy / sxx
	f.A = my - f.B*mx
	var sse float64
	for _, p := range pts {
		r := p.TTFT - (f.A + f.B*p.PromptTokens)
		sse += r * r
	}
	f.BErr = math.Sqrt(sse / (n - 2) / sxx)
	return f
}
