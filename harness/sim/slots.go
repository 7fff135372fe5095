package sim

import (
	"math"
	"slices"
	"time"
)

// The capacity model: with Config.Slots = K, at most K requests generate at
// once and the others wait in arrival order, as in a model server's
// scheduler with a fixed batch size. Headers go out before the wait, as
// vLLM and Ollama send them, so a queue shows up in time to first token,
// not in time to first byte.

// slotQueue is guarded by Server.mu.
type slotQueue struct {
	limit int             // Config.Slots of the latest SetConfig; 0 = unlimited
	busy  int             // requests holding a slot
	queue []chan struct{} // waiting requests, oldest first; closed when granted
}

// granted is handed out when a slot is free at once, so that the common
// case allocates nothing.
var granted = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

func (q *slotQueue) free() bool { return q.limit == 0 || q.busy < q.limit }

// grant hands free slots to the oldest waiters.
func (q *slotQueue) grant() {
	for len(q.queue) > 0 && q.free() {
		q.busy++
		close(q.queue[0])
		q.queue[0] = nil
		q.queue = q.queue[1:]
	}
}

// enqueue asks for a slot; the channel is closed once the slot is the
// caller's. A newcomer never overtakes a waiter, even when a slot is free
// for a moment between a release and the waiter's wake-up.
func (s *Server) enqueue() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.slots.queue) == 0 && s.slots.free() {
		s.slots.busy++
		return granted
	}
	ch := make(chan struct{})
	s.slots.queue = append(s.slots.queue, ch)
	return ch
}

// leave withdraws a request whose client gave up while it waited; a slot
// granted in the meantime is given back.
func (s *Server) leave(ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.slots.queue, ch); i >= 0 {
		s.slots.queue = slices.Delete(s.slots.queue, i, i+1)
		return
	}
	s.slots.busy--
	s.slots.grant()
}

func (s *Server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots.busy--
	s.slots.grant()
}

// Slots reports the requests holding a generation slot and those waiting
// for one. Both are 0 when no request runs, whatever happened to the
// requests before: a test reads them to prove that no exit path leaks.
func (s *Server) Slots() (busy, queued int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slots.busy, len(s.slots.queue)
}

// start begins generation: with Slots set it waits for a slot first, and
// either way the first token is due TTFTDelay after the request arrived,
// plus the wait. It reports whether the client is still there.
func (c *call) start() bool {
	if c.cfg.Slots > 0 {
		asked := time.Now()
		ok := c.acquire()
		if !c.immediate {
			c.tr.QueueWait = time.Since(asked) // until the grant, or until the client left
		}
		if !ok {
			return false
		}
		// Slowdown shares compute among the requests generating now,
		// which the slot count says only once this one is among them.
		c.lookupCache()
		c.tr.TTFTDelay = c.ttftDelay()
	} else if c.lookupCache() {
		c.tr.TTFTDelay = c.ttftDelay()
	}
	c.started, c.running = true, true
	c.kvBlocks = kvBlocksOf(c.tr.PromptTokens, c.planned())
	c.s.generating(c.kvBlocks, true)
	c.next = c.from.Add(c.tr.QueueWait + c.tr.TTFTDelay)
	return true
}

// acquire waits for a slot, sending keep-alive comments meanwhile once an
// event stream has begun, and gives up when the client leaves.
func (c *call) acquire() bool {
	ch := c.s.enqueue()
	c.immediate = ch == granted
	for {
		var tick <-chan time.Time
		if c.pings && c.cfg.KeepAlive > 0 {
			c.timer.Reset(c.cfg.KeepAlive)
			tick = c.timer.C
		}
		select {
		case <-ch:
			c.timer.Stop()
			c.held = true
			return true
		case <-c.ctx.Done():
		case <-tick:
			if c.raw(": ping" + c.nl + c.nl); !c.failed {
				continue
			}
		}
		c.timer.Stop()
		c.s.leave(ch)
		return false
	}
}

// releaseSlot runs on every exit of a request, panics included: it takes
// the request out of the running ones and gives back its slot.
func (c *call) releaseSlot() {
	if c.running {
		c.running = false
		c.s.generating(c.kvBlocks, false)
	}
	if c.held {
		c.held = false
		c.s.release()
	}
}

// ServiceTime is how long one request holds its slot on average: the time
// to first token for promptTokens (TTFT and prefill, times Scale) and then
// outputTokens−1 TPOTs (outputTokens counts reasoning and answer tokens
// alike). Jitter, a mean-1 factor, is left out, and so are Slowdown and
// SlowFactor, which depend on load and on time rather than on the request.
func (c Config) ServiceTime(promptTokens, outputTokens int) time.Duration {
	first := scaled(c.firstToken(promptTokens), c.scale())
	return first + time.Duration(max(outputTokens-1, 0))*c.TPOT
}

// firstToken is the unscaled time to first token for promptTokens: TTFT
// and prefill.
func (c Config) firstToken(promptTokens int) time.Duration {
	return c.TTFT + time.Duration(promptTokens)*c.PrefillPerToken
}

// scale is Scale, 1 when unset.
func (c Config) scale() float64 {
	if c.Scale == 0 {
		return 1
	}
	return c.Scale
}

// Capacity is the arrival rate, in requests per second, that keeps all
// Slots busy: Slots / ServiceTime. Above it the backlog grows by
// (rate − Capacity) requests every second. Without a slot limit, or with
// an instant service, it is +Inf rather than 0, since no rate ever queues.
func (c Config) Capacity(promptTokens, outputTokens int) float64 {
	st := c.ServiceTime(promptTokens, outputTokens)
	if c.Slots == 0 || st <= 0 {
		return math.Inf(1)
	}
	return float64(c.Slots) / st.Seconds()
}
