package load

import (
	"context"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// This file is the whole of sessions: its kind registers itself, and the
// Runner plays the conversations it paces (conversation.go).
func init() { Register(sessionsKind) }

const sessionsExample = "[1, 4, 16]"

// sessionsKind is sessions: closed loops of so many conversations.
var sessionsKind = Kind{Key: "sessions", Example: sessionsExample,
	Levels: func(v Value) ([]Pacer, error) {
		return eachLevel(v, sessionsExample, func(v Value) (Pacer, error) {
			c, err := v.Whole(1, MaxWorkers)
			return Sessions(c), err
		})
	},
}

// Sessions is the closed loop of conversations: this many users, each
// playing a conversation turn by turn (the history growing, a think time
// before each later turn) and starting the next when it ends. At most
// this many requests are in flight, fewer while users think.
type Sessions int

var _ SessionPacer = Sessions(0)

// Pace plays the n conversations on min(s, n) users, as a closed loop
// sends requests on its workers.
func (s Sessions) Pace(ctx context.Context, n int, send func(i int, sched time.Time)) {
	Closed(s).Pace(ctx, n, send)
}

// Level is sessions=s.
func (s Sessions) Level() sample.Level { return sample.NewLevel("sessions", int(s)) }

// Split gives each shard its share of the users, and refuses fewer users
// than shards.
func (s Sessions) Split(sh Shard) (Pacer, error) {
	w, err := splitWorkers("sessions", int(s), sh)
	return Sessions(w), err
}

// Workers is the number of conversations in flight: a run's warm-up opens
// a connection for each, which its conversations then keep.
func (s Sessions) Workers() int { return max(int(s), 1) }

// Requests is not the closed loop's to say: the server's pace decides.
func (Sessions) Requests(time.Duration) (int, bool) { return 0, false }

// Duration is not the closed loop's to say: the server's pace decides.
func (Sessions) Duration(int) (time.Duration, bool) { return 0, false }

// Length is 0: a level of conversations runs for a count of requests.
func (Sessions) Length() time.Duration { return 0 }

// PacesSessions marks Sessions as a pacer of conversations.
func (Sessions) PacesSessions() {}
