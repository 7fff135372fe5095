package load

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// Conversation is a fixture case as a level of conversations plays it
// (sessions:, session_rate:): turn 1 is First, each later turn the
// history so far — the replies in between, the model's own or Recorded
// ones, and the user messages of Later — and each later turn waits its
// think time after the answer before it. A case that is not a
// conversation is one of a single turn.
type Conversation struct {
	First    []openai.ChatCompletionMessage // the system prompt and the first turn's messages
	Later    []string                       // the user messages of turns 2, 3, …
	Recorded []string                       // the reply before each of them (history: recorded); nil: the model's own
	Think    quality.Think
	Check    *quality.Check // judges the last turn's answer; nil: latency only
}

// Turns is the number of turns.
func (c *Conversation) Turns() int { return 1 + len(c.Later) }

// newConversation is case c as a conversation whose first turn follows
// msgs (the system prompt, and the messages of a case that is not a
// conversation).
func newConversation(c *quality.Case, msgs []openai.ChatCompletionMessage, chk *quality.Check) *Conversation {
	conv := &Conversation{First: msgs, Check: chk}
	if !c.IsConversation() {
		return conv
	}
	conv.First = append(msgs, openai.ChatCompletionMessage{Role: "user", Content: c.Turns[0]})
	conv.Later = c.Turns[1:]
	if c.History == quality.HistoryRecorded {
		conv.Recorded = c.Assistant
	}
	if c.Think != nil {
		conv.Think = *c.Think
	}
	return conv
}

// firstCheck is what judges turn 1: the case's checks when it is the last
// turn, none otherwise (a conversation's first answer is timed only).
func (c *Conversation) firstCheck() *quality.Check {
	if c.Turns() == 1 {
		return c.Check
	}
	return nil
}

// reply is what the history holds after turn t: the recorded reply, or
// the answer the model gave (and after the last turn, that answer).
func (c *Conversation) reply(t int, answer string) string {
	if c.Recorded != nil && t <= len(c.Recorded) {
		return c.Recorded[t-1]
	}
	return answer
}

// conversationOf is p's conversation, or p alone as one of a single turn.
func conversationOf(p Prompt) *Conversation {
	if p.Conversation != nil {
		return p.Conversation
	}
	return &Conversation{First: p.Request.Messages, Check: p.Check}
}

// Conversing reports whether a case of the fixture is a conversation: its
// levels must then play conversations (sessions:, session_rate:).
func (f *Fixture) Conversing() bool { return f.conversing }

// Conversations is how many positions of the fixture, from case at on, n
// requests take when they are played as conversations: in each shard's
// share of them, the conversations that hold its requests (each its
// turns, the last cut to what is left), the shards' cases interleaved as
// Shard.Source interleaves them.
func (f *Fixture) Conversations(at, n int, sh Shard) int {
	if !sh.On() {
		sh = Shard{0, 1}
	}
	span := 0
	for i := range sh.N {
		left := Shard{i, sh.N}.Share(n)
		for k := 0; left > 0; k++ {
			left -= f.Prompt(at + k*sh.N + i).Conversation.Turns()
			span = max(span, k*sh.N+i+1)
		}
	}
	return span
}

// ThinkPerRequest is the mean think time a level of conversations spends
// per request of the fixture: every case's think time before each turn
// after its first, over all the cases' turns (a plan's estimate).
func (f *Fixture) ThinkPerRequest() time.Duration {
	var think time.Duration
	turns := 0
	for _, p := range f.prompts {
		c := p.Conversation
		think += time.Duration(len(c.Later)) * c.Think.Mean
		turns += c.Turns()
	}
	return think / time.Duration(max(turns, 1))
}

// SessionPacer is a pacer of conversations (sessions:, session_rate:):
// its Pace sends conversations, not requests — send(k, sched) plays
// conversation k to its end, turn after turn — and the Runner lays the
// requests of a run out over them.
type SessionPacer interface {
	Pacer
	// PacesSessions marks the pacer as one of conversations.
	PacesSessions()
}

// PacesSessions reports whether p paces conversations, a shard's part of
// the load included.
func PacesSessions(p Pacer) bool {
	if s, ok := p.(sharded); ok {
		p = s.Pacer
	}
	_, ok := p.(SessionPacer)
	return ok
}

// Seed seeds the draws of a run besides an open loop's schedule: the think
// times of its conversations.
func Seed(seed uint64) Option { return func(r *Runner) { r.seed = seed } }

// SessionHeader names the header each turn of a conversation carries, its
// value the conversation's id (sample.Session), for a router that keeps a
// session on one server ("": none).
func SessionHeader(name string) Option { return func(r *Runner) { r.header = name } }

// converse is measure for a pacer of conversations: the n requests are
// laid out over conversations (layout) and the pacer starts them; each
// plays its turns in order. A warm-up plays each conversation's first
// turn only: it is there to open the connections the conversations keep.
func (run *run) converse(ctx context.Context, p Pacer, n, seq0 int, warmup bool) []sample.Sample {
	pace, cancel := run.pacing(ctx, warmup)
	defer cancel()
	most := sample.MaxTurns
	if warmup {
		most = 1
	}
	plan := run.layout(n, most)
	var mu sync.Mutex
	samples := make([]sample.Sample, 0, min(n, 1<<16))
	p.Pace(pace, len(plan), func(k int, sched time.Time) {
		run.play(ctx, pace, k, plan[k], sched, seq0, warmup, func(s *sample.Sample) {
			run.emit(s)
			mu.Lock()
			samples = append(samples, *s)
			mu.Unlock()
		})
	})
	slices.SortFunc(samples, func(a, b sample.Sample) int { return a.Seq - b.Seq })
	return samples
}

// turnSpan is the part of a run's requests one conversation sends: its
// first request's position among them, and how many turns it plays.
type turnSpan struct{ start, turns int }

// layout lays n requests out over the source's conversations, each
// playing its turns (at most most), the last cut to what is left of n:
// conversation k of the run (prompt k of the source) sends requests
// start … start+turns−1. A source of prompts without conversations
// (synthetic ones) plays each as a conversation of one turn.
func (run *run) layout(n, most int) []turnSpan {
	if n <= 0 {
		return nil
	}
	if run.src.Prompt(0).Conversation == nil {
		most = 1
	}
	var out []turnSpan
	for at := 0; at < n; {
		t := 1
		if most > 1 {
			t = min(run.src.Prompt(len(out)).Conversation.Turns(), most)
		}
		t = min(t, n-at)
		out = append(out, turnSpan{at, t})
		at += t
	}
	return out
}

// play sends conversation k's turns one after another, each later one its
// think time after the previous answer ended, and gives add each sample.
// A turn that fails ends the conversation (its history has no reply to go
// on from), and so does the pacer stopping (a soak's duration) while it
// thinks. Its turns go through one connection of their own where the Doer
// can hold one (a *stream.Client), with the session header.
func (run *run) play(ctx, pace context.Context, k int, at turnSpan, sched time.Time, seq0 int, warmup bool, add func(*sample.Sample)) {
	p := run.src.Prompt(k)
	conv := conversationOf(p)
	id := sessionID(run.id, k, warmup)
	d, release := run.pin(id)
	defer release()
	r := rand.New(rand.NewPCG(run.r.seed^caseHash(p.Case), uint64(k)))
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	// The first turn is the prompt's request as the source gave it (with a
	// cache policy's marker: conv.First is the fixture's), appended to
	// after a clip: never into the fixture's array.
	msgs := slices.Clip(p.Request.Messages)
	var reply string
	var end time.Time
	for t := 1; t <= at.turns; t++ {
		var think time.Duration
		if t > 1 {
			think = conv.Think.Draw(r)
			due := end.Add(think)
			if !waitUntil(pace, timer, due) {
				return
			}
			if !sched.IsZero() {
				sched = due // an open loop's later turn is due when its user is done thinking
			}
			msgs = append(msgs, openai.ChatCompletionMessage{Role: "assistant", Content: reply},
				openai.ChatCompletionMessage{Role: "user", Content: conv.Later[t-2]})
		}
		turn := Prompt{Request: p.Request, Case: p.Case}
		turn.Request.Messages = msgs
		if t == conv.Turns() {
			turn.Check = conv.Check
		}
		s := run.one(ctx, d, turn, turn.Request, seq0+at.start+t-1, sched, 0)
		s.Session, s.Turn, s.Turns, s.Think, s.Warmup = id, t, conv.Turns(), think, warmup
		add(&s)
		if !s.OK() {
			return
		}
		reply, end = conv.reply(t, s.Content), s.End()
	}
}

// sessionID names conversation k of a run: the run's id (no other run's)
// and k, a warm-up's apart.
func sessionID(runID string, k int, warmup bool) string {
	if warmup {
		return runID + "/w" + strconv.Itoa(k)
	}
	return runID + "/" + strconv.Itoa(k)
}

// caseHash seeds a case's think times apart from another's.
func caseHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// pinner is a Doer that holds a connection for a conversation
// (*stream.Client.Pin).
type pinner interface {
	Pin(header, value string) (*stream.Client, func())
}

// pin is the Doer a conversation's turns go through, and its release.
func (run *run) pin(id string) (Doer, func()) {
	if p, ok := run.d.(pinner); ok {
		return p.Pin(run.r.header, id)
	}
	return run.d, func() {}
}
