package load

import (
	"context"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// This file is the whole of session_rate: its kind registers itself, and
// the Runner plays the conversations it starts (conversation.go).
func init() { Register(sessionRateKind) }

const sessionRateExample = "[0.5, 2]"

// sessionRateKind is session_rate: open loops starting so many
// conversations per second.
var sessionRateKind = Kind{Key: "session_rate", Example: sessionRateExample,
	Levels: func(v Value) ([]Pacer, error) {
		return eachLevel(v, sessionRateExample, func(v Value) (Pacer, error) {
			r, err := v.Number()
			if err != nil || checkRate("session_rate", r) != nil {
				return nil, v.Errorf("%s is not a rate (want conversations started per second, > 0 and ≤ %d)", v, MaxRate)
			}
			return SessionRate{Rate: r}, nil
		})
	},
}

// SessionRate is the open loop of conversations: they start at Rate per
// second on the schedule of Arrivals (the scenario's: arrival:,
// burstiness:, seed:), whatever the server does, as new users arrive; each
// plays its turns, a think time after each answer. Arrivals'
// MaxConcurrency caps the conversations in flight. A turn's scheduled
// instant is its conversation's start for the first, and the end of its
// user's think time for the others, so that lag says how late the client
// sent either.
type SessionRate struct {
	Rate     float64 // conversations started per second, > 0
	Arrivals Arrivals
}

var (
	_ SessionPacer = SessionRate{}
	_ OpenLoop     = SessionRate{}
)

// starts is the open loop of the conversations' starts.
func (s SessionRate) starts() Open {
	return Open{Rate: s.Rate}.WithArrivals(s.Arrivals).(Open)
}

// Pace starts conversation i at its scheduled instant, as an open loop
// sends a request.
func (s SessionRate) Pace(ctx context.Context, n int, send func(i int, sched time.Time)) {
	s.starts().Pace(ctx, n, send)
}

// Level is session_rate=<conversations per second>.
func (s SessionRate) Level() sample.Level { return sample.NewLevel("session_rate", s.Rate) }

// WithArrivals is the open loop of conversations drawn as a says.
func (s SessionRate) WithArrivals(a Arrivals) Pacer {
	s.Arrivals = a
	return s
}

// Split gives each shard Rate/N conversations per second, seeded apart,
// and its share of the in-flight cap.
func (s SessionRate) Split(sh Shard) (Pacer, error) {
	a, err := s.Arrivals.split(sh)
	if err != nil {
		return nil, err
	}
	return SessionRate{Rate: s.Rate / float64(sh.N), Arrivals: a}, nil
}

// Workers is the cap on conversations in flight, 0 when there is none.
func (s SessionRate) Workers() int { return s.Arrivals.MaxConcurrency }

// Requests is the fixture's to say, not the rate's: how many turns the
// conversations started in d hold.
func (SessionRate) Requests(time.Duration) (int, bool) { return 0, false }

// Duration is the fixture's to say: how many conversations n requests
// take.
func (SessionRate) Duration(int) (time.Duration, bool) { return 0, false }

// Length is 0: a level of conversations runs for a count of requests.
func (SessionRate) Length() time.Duration { return 0 }

// PacesSessions marks SessionRate as a pacer of conversations.
func (SessionRate) PacesSessions() {}
