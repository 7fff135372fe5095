package session

import (
	"context"
	"sync"

	"github.com/llmsla/llmsla/harness/load"
)

// tokenCounts are the endpoints' counts of the words synthetic and trace
// prompts are made of, measured once each (load.Tokens).
type tokenCounts struct {
	mu sync.Mutex
	of map[string]load.Tokens
}

// calibrationWords are the two prompts' lengths the count is fitted from.
var calibrationWords = [2]int{32, 288}

// size sizes a send's synthetic or trace prompts in its endpoint's
// tokens: measured by the send that is its first of them (the schedule
// says so, and the plan counts the two requests), known after.
func (s *Session) size(ctx context.Context, c Cell, sd sends) {
	if !sd.calibrate && sd.own == nil && c.Level.PromptTokens == 0 {
		return
	}
	name := c.Endpoint.Name
	tc := &s.tokens
	if sd.calibrate {
		tok := measureTokens(ctx, s, c)
		tc.mu.Lock()
		if tc.of == nil {
			tc.of = map[string]load.Tokens{}
		}
		tc.of[name] = tok
		tc.mu.Unlock()
	}
	tc.mu.Lock()
	tok, ok := tc.of[name]
	tc.mu.Unlock()
	if !ok {
		return
	}
	if cal, ok := sd.src.(load.Calibrated); ok {
		cal.Calibrate(tok)
	}
	if cal, ok := sd.own.(load.Calibrated); ok {
		cal.Calibrate(tok)
	}
}

// measureTokens asks the endpoint how many prompt tokens two synthetic
// prompts of known words are (one token of answer each, not recorded):
// the zero Tokens (a word a token) when it does not say.
func measureTokens(ctx context.Context, s *Session, c Cell) load.Tokens {
	var counted [2]int
	for i, w := range calibrationWords {
		p := load.NewSynthetic(w, 0).Prompt(0)
		p.Request.MaxTokens = 1
		smp := s.eps.clients[c.Endpoint.Name].Do(ctx, p.Request)
		if !smp.OK() {
			return load.Tokens{}
		}
		counted[i] = smp.PromptTokens
	}
	tok, ok := load.Fit(calibrationWords[0], counted[0], calibrationWords[1], counted[1])
	if !ok {
		return load.Tokens{}
	}
	return tok
}
