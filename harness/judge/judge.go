package judge

import (
	"context"
	"fmt"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// Doer sends one request and times it: a *stream.Client.
type Doer interface {
	Do(ctx context.Context, req stream.Request) sample.Sample
}

// Judge asks one judge endpoint for verdicts, through its cache.
type Judge struct {
	Name     string // the judge endpoint's name
	Identity Identity
	Doer     Doer
	Cache    *Cache // nil: none, every judgment is asked
	// Concurrency is how many judgments are asked at once (0: 4).
	Concurrency int
}

// Sent receives the sample of every request a judge was sent, its
// Quality holding the judgment it gave (or why none), and the ask it
// answered: the judge's own record, kept apart from every measured
// figure. Calls are serialised.
type Sent func(*sample.Sample, Ask)

// Ask is one judgment to make: an item under a rubric.
type Ask struct {
	Rubric *rubric.Rubric
	rubric.Item
}

// Result is a judgment: a verdict, or why there is none.
type Result struct {
	rubric.Verdict
	Err    error // nil with a verdict; wraps one of Failures without
	Cached bool  // from the cache: no request was sent
}

// DefaultConcurrency is how many judgments a Judge asks at once.
const DefaultConcurrency = 4

// Judge makes the judgment of each ask, in order: a cached one where the
// cache has it, else one request per distinct judgment (asks with the
// same key share it). A request that fails, times out or answers no
// verdict fails every ask it was for, and is not cached: the next run asks
// again. sent (nil: none) receives the sample of every request.
func (j *Judge) Judge(ctx context.Context, asks []Ask, sent Sent) []Result {
	out := make([]Result, len(asks))
	keys := make([]string, len(asks))
	todo := map[string][]int{} // key → the asks it answers
	var order []string
	for i, a := range asks {
		keys[i] = Key(j.Identity, a.Rubric, a.Item)
		if len(a.Answer) > rubric.MaxAnswer {
			out[i].Err = fmt.Errorf("%w: the answer is %d bytes, beyond the %d a judge is shown", ErrUnjudgeable, len(a.Answer), rubric.MaxAnswer)
			continue
		}
		if e, ok := j.Cache.Get(keys[i]); ok {
			out[i] = Result{Verdict: e.Verdict, Cached: true}
			continue
		}
		if todo[keys[i]] == nil {
			order = append(order, keys[i])
		}
		todo[keys[i]] = append(todo[keys[i]], i)
	}
	var mu sync.Mutex
	j.each(order, func(key string) {
		first := todo[key][0]
		r, s := j.ask(ctx, asks[first], key)
		if sent != nil {
			mu.Lock()
			sent(&s, asks[first])
			mu.Unlock()
		}
		for _, i := range todo[key] {
			out[i] = r
		}
	})
	return out
}

// each calls fn for every key on the judge's pool.
func (j *Judge) each(keys []string, fn func(string)) {
	n := j.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	work := make(chan string)
	var wg sync.WaitGroup
	for range min(n, len(keys)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				fn(k)
			}
		}()
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
}

// ask sends one judgment and reads its verdict; the sample is the
// request's, its Quality the judgment.
func (j *Judge) ask(ctx context.Context, a Ask, key string) (Result, sample.Sample) {
	zero := float32(0)
	seed := j.Identity.Seed
	req := stream.Request{Messages: rubric.Messages(a.Rubric, a.Item), MaxTokens: j.Identity.MaxTokens, Temperature: &zero, Seed: &seed,
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "verdict", Schema: a.Rubric.Schema(), Strict: true}}}
	s := j.Doer.Do(ctx, req)
	s.Case = a.Case
	v, err := read(a.Rubric, &s)
	q := sample.Quality{Case: a.Case}
	if err != nil {
		quality.SetJudgeFailure(&q, err.Error())
	} else {
		quality.SetJudgment(&q, v.Score, v.Pass, v.Reason)
		j.Cache.Put(Entry{Key: key, Judge: j.Name, Model: j.Identity.Model, Digest: j.Identity.Digest,
			Rubric: a.Rubric.Name, Case: a.Case, At: time.Now().UTC(), Verdict: v})
	}
	s.Quality = &q
	return Result{Verdict: v, Err: err}, s
}

// read is the verdict a judge's response gives under r, or why none.
func read(r *rubric.Rubric, s *sample.Sample) (rubric.Verdict, error) {
	switch {
	case !s.OK() && (s.ErrKind == sample.KindTimeoutHeaders || s.ErrKind == sample.KindTimeoutIdle || s.ErrKind == sample.KindTimeoutTotal):
		return rubric.Verdict{}, fmt.Errorf("%w: %s", ErrTimeout, s.Err)
	case !s.OK():
		return rubric.Verdict{}, fmt.Errorf("%w: %s", ErrRequest, s.Err)
	case s.ContentCut:
		return rubric.Verdict{}, fmt.Errorf("%w at the capture limit (%d bytes)", ErrCut, len(s.Content))
	}
	v, err := Parse(r, s.Content)
	if err != nil && s.Finish == "length" {
		return rubric.Verdict{}, fmt.Errorf("%w by max_tokens (%d tokens; raise judge: {max_tokens: …}): %v", ErrCut, s.OutputTokens, err)
	}
	return v, err
}
