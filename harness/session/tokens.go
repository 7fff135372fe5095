package session

import (
	"context"
	"sync"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/stream"
)

// tokenCounts are the endpoints' counts of the words synthetic and trace
// prompts are made of, measured once each (load.Tokens).
type tokenCounts struct {
	mu sync.Mutex
	of map[string]load.Tokens
}

// size sizes a send's synthetic or trace prompts in its endpoint's
// tokens: measured by the send that is its first of them (the schedule
// says so, and the plan counts the two requests), known after.
func (tc *tokenCounts) size(ctx context.Context, client *stream.Client, c Cell, sd sends) {
	if sd.sized == nil {
		return
	}
	name := c.Endpoint.Name
	if sd.calibrate {
		tok := measureTokens(ctx, client)
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
	sd.sized.Calibrate(tok)
}

// measureTokens asks the endpoint how many prompt tokens the calibration
// prompts are (load.CalibrationPrompts, one token of answer each, not
// recorded): the zero Tokens (a word a token) when it does not say.
func measureTokens(ctx context.Context, client *stream.Client) load.Tokens {
	var counted [3]int
	for i, p := range load.CalibrationPrompts() {
		smp := client.Do(ctx, p.Request)
		if !smp.OK() {
			return load.Tokens{}
		}
		counted[i] = smp.PromptTokens
	}
	tok, ok := load.FitTokens(counted)
	if !ok {
		return load.Tokens{}
	}
	return tok
}
