package judge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/internal/modroot"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stream"
)

// Settings are a session's judge, from the judge: block of the SLA file.
type Settings struct {
	Endpoint stream.Endpoint
	// AllowSelf lets the judge be an endpoint the run measures.
	AllowSelf bool
	// Cache is the file judgments are cached in; "" caches none.
	Cache string
	// Concurrency is how many judgments are asked at once; MaxTokens caps
	// each verdict; Seed is sent with each (temperature is always 0).
	Concurrency int
	MaxTokens   int
	Seed        int
	// Digest is the judge's weights' digest when the session knows it (a
	// simulated judge's); else it is asked of an Ollama server, and
	// unknown elsewhere.
	Digest string
}

// Judging is the observer that judges a session's answers under rubrics:
// after each level's last measured request (never among them: a judge
// request is no measured figure's), it asks the judge about every
// measured answer of a scenario that has a rubric, through its cache, and
// folds each judgment into the answer's quality. It is an amender
// (package observe): the level's measured samples are recorded once
// judged. The judge's own requests go to a samples file of their own.
type Judging struct {
	observe.Nop
	set     *Settings // nil: no judge
	client  *stream.Client
	cache   *Cache
	sink    *sample.File
	rubrics rubric.Files

	identity     sync.Once
	judge        *Judge
	identityNote string // why the judge's digest is unknown

	mu     sync.Mutex
	plans  map[string]map[string]judgeCase // scenario → case id → what to ask
	notes  map[string]string               // scenario → why its answers are not judged
	sent   []sample.Sample                 // the judge's requests
	judged int                             // answers judged
	cached int                             // of them, from the cache
}

// judgeCase is what a judge is asked about one case.
type judgeCase struct {
	rubric *rubric.Rubric
	item   rubric.Item
}

// Files are where a session's judge keeps what it does.
type Files struct {
	// Samples is the JSONL file the judge's requests are appended to
	// ("": none).
	Samples string
	// Redact filters every line written; Rejudge reads nothing from the
	// cache (every judgment is asked again, and cached).
	Redact  func([]byte) []byte
	Rejudge bool
}

// NewJudging is the judging of a session whose judge set says (nil: no
// judge, whose notes say why a scenario with a rubric is not judged),
// asked through client; its cache file that cannot be read fails here,
// before any request.
func NewJudging(set *Settings, client *stream.Client, f Files) (*Judging, error) {
	j := &Judging{set: set, client: client, plans: map[string]map[string]judgeCase{}, notes: map[string]string{}}
	if set == nil {
		return j, nil
	}
	if set.Cache != "" {
		c, err := OpenCache(set.Cache, f.Redact, f.Rejudge)
		if err != nil {
			return nil, err
		}
		j.cache = c
	}
	if f.Samples != "" {
		s, err := sample.Create(f.Samples, f.Redact)
		if err != nil {
			j.cache.Close()
			return nil, fmt.Errorf("judge samples file: %w", err)
		}
		j.sink = s
	}
	return j, nil
}

// Close closes the cache and the judge's samples file.
func (j *Judging) Close() error {
	var errs []error
	if j.cache != nil {
		errs = append(errs, j.cache.Close())
	}
	if j.sink != nil {
		errs = append(errs, j.sink.Close())
	}
	return errors.Join(errs...)
}

// Plan loads the rubrics of a scenario's cases — def for every case, a
// judged case's own for that case — and remembers what each case asks, or
// why it is not judged (off: the scenario's quality is off). A rubric
// that does not load, or a case judged by a rubric alone with no judge to
// ask, is an error here, before any request.
func (j *Judging) Plan(scenario, def string, cases []quality.Case, off bool) error {
	plan := map[string]judgeCase{}
	var errs []error
	var rubricPaths []string
	for i := range cases {
		c := &cases[i]
		path, judged := c.JudgeRubric()
		if path == "" {
			path = def
		}
		switch {
		case judged && path == "":
			errs = append(errs, fmt.Errorf("%s:%d: match.rubric: the case is judged by a rubric and names none, nor does scenario %s (Rubric)", c.File, c.Line, scenario))
			continue
		case path == "":
			continue
		case judged && j.set == nil && !off:
			errs = append(errs, fmt.Errorf("%s:%d: match: the case is judged by a rubric alone, and no judge endpoint is configured (judge: {endpoint: …} in the SLA file): its answers would not be checked at all", c.File, c.Line))
			continue
		}
		r, seen, err := j.rubric(path)
		if err != nil {
			if !seen {
				errs = append(errs, err)
			}
			continue
		}
		if !slices.Contains(rubricPaths, path) {
			rubricPaths = append(rubricPaths, path)
		}
		plan[c.ID] = judgeCase{rubric: r, item: rubric.Item{Case: c.ID, Question: questionOf(c), Reference: c.Answer}}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.notes, scenario)
	switch {
	case len(plan) == 0:
		delete(j.plans, scenario)
	case off:
		j.notes[scenario] = fmt.Sprintf("scenario %s: quality: off, so no judge is asked", scenario)
	case j.set == nil:
		j.notes[scenario] = fmt.Sprintf("scenario %s: no judge endpoint is configured (judge: {endpoint: …} in the SLA file), so its answers are not judged by %s and judge_pass is not measured",
			scenario, strings.Join(rubricPaths, ", "))
	default:
		j.plans[scenario] = plan
	}
	return nil
}

// rubric loads a rubric named relative to the module root, once; seen
// says it was asked before.
func (j *Judging) rubric(path string) (r *rubric.Rubric, seen bool, err error) {
	abs, err := modroot.Path(path)
	if err != nil {
		return nil, false, err
	}
	return j.rubrics.Get(filepath.Clean(abs))
}

// questionOf is what a judge is shown as a case's question: its one
// message, or each message with its role.
func questionOf(c *quality.Case) string {
	msgs := c.Render()
	if len(msgs) == 1 {
		return msgs[0].Content
	}
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Role + ": " + m.Content
	}
	return strings.Join(parts, "\n\n")
}

// Note says why a scenario's answers are not judged though it names a
// rubric ("" when they are, or it names none), so that a run without a
// judge does not read as judged.
func (j *Judging) Note(scenario string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.notes[scenario]
}

// Amends reports whether the level's answers are judged: a measured
// level of a scenario with rubrics and its quality checked.
func (j *Judging) Amends(lv *observe.Level) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.set != nil && j.plans[lv.Scenario] != nil && !lv.QualityOff && !lv.Probe && !lv.Sourced
}

// LevelEnd asks the judge about every measured answer of a judged level
// that has a quality check and a rubric, and folds each judgment into the
// answer's quality.
func (j *Judging) LevelEnd(ctx context.Context, lv *observe.Level, samples []sample.Sample) {
	if !lv.Held || !j.Amends(lv) {
		return
	}
	j.mu.Lock()
	plan := j.plans[lv.Scenario]
	j.mu.Unlock()
	var asks []Ask
	var at []int
	for i := range samples {
		smp := &samples[i]
		jc, ok := plan[smp.Case]
		if !smp.Measured() || smp.Quality == nil || !ok {
			continue
		}
		if smp.ContentCut {
			quality.SetJudgeFailure(smp.Quality, fmt.Sprintf("%v: the answer was cut at the capture limit", ErrUnjudgeable))
			continue
		}
		item := jc.item
		item.Answer = smp.Content
		asks = append(asks, Ask{Rubric: jc.rubric, Item: item})
		at = append(at, i)
	}
	results := j.theJudge(ctx).Judge(ctx, asks, func(js *sample.Sample, _ Ask) {
		js.Scenario, js.Level = lv.Scenario, lv.Label
		j.record(js)
	})
	cached := 0
	for k, r := range results {
		q := samples[at[k]].Quality
		if r.Cached {
			cached++
		}
		if r.Err != nil {
			quality.SetJudgeFailure(q, r.Err.Error())
		} else {
			quality.SetJudgment(q, r.Score, r.Pass, r.Reason)
		}
	}
	j.mu.Lock()
	j.judged += len(results)
	j.cached += cached
	j.mu.Unlock()
}

// record keeps a judge request's sample, and writes it to the judge's file.
func (j *Judging) record(s *sample.Sample) {
	j.mu.Lock()
	j.sent = append(j.sent, *s)
	j.mu.Unlock()
	if j.sink != nil {
		j.sink.Write(s)
	}
}

// digestTimeout bounds the question of an Ollama judge's digest.
const digestTimeout = 5 * time.Second

// theJudge is the session's judge, made on first use: its identity (the
// model, and the digest of its weights where known) keys the cache.
func (j *Judging) theJudge(ctx context.Context) *Judge {
	j.identity.Do(func() { j.judge, j.identityNote = j.On(ctx, j.set.Endpoint, j.client, j.set.Digest) })
	return j.judge
}

// On is a judge asking ep through c, with the session's judge cache and
// settings; note says why the digest of its weights is unknown, where it
// could be known. digest is the weights' digest when the caller knows it
// ("": asked of an Ollama server). llmsla judge calibrate holds judges to
// labels and to each other with it.
func (j *Judging) On(ctx context.Context, ep stream.Endpoint, c *stream.Client, digest string) (jd *Judge, note string) {
	id := Identity{Model: ep.Model, Seed: j.set.Seed, MaxTokens: j.set.MaxTokens, Digest: digest}
	if digest == "" && ep.Kind == stream.KindOllama {
		dctx, cancel := context.WithTimeout(ctx, digestTimeout)
		d, err := ollama.Digest(dctx, ollama.Host(ep.BaseURL), ep.Model)
		cancel()
		id.Digest = d
		if err != nil {
			note = fmt.Sprintf("judge %s: the model's digest is unknown (%v): its cached judgments are keyed by the model's name alone", ep.Name, err)
		}
	}
	return &Judge{Name: ep.Name, Identity: id, Doer: c, Cache: j.cache, Concurrency: j.set.Concurrency}, note
}

// Default is the session's own judge and the note on its identity; nil
// without a judge.
func (j *Judging) Default(ctx context.Context) (*Judge, string) {
	if j.set == nil {
		return nil, ""
	}
	jd := j.theJudge(ctx)
	return jd, j.identityNote
}

// Settings are the judge's; nil without one.
func (j *Judging) Settings() *Settings { return j.set }

// Report is what a session's judge did: the answers it judged, how many
// came from its cache, and the account of its own requests (latency,
// failures, tokens), which no measured figure holds.
type Report struct {
	Judged, Cached int
	Account        Account
	Note           string // about the judge's identity, "" when none
	CacheErr       error  // the cache file's first write error
}

// Report reports the judge so far; ok is false without a judge.
func (j *Judging) Report() (r Report, ok bool) {
	if j.set == nil {
		return Report{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	r = Report{Judged: j.judged, Cached: j.cached, Note: j.identityNote, CacheErr: j.cache.Err(),
		Account: Account{Judge: j.set.Endpoint.Name, Failed: map[string]int{}}}
	if accts := Summarize(j.sent); len(accts) == 1 {
		r.Account = accts[0]
	}
	return r, true
}

// String is the report on one line.
func (r Report) String() string {
	return fmt.Sprintf("%d answers judged, %d from the cache; %s", r.Judged, r.Cached, r.Account)
}

// Sent is the judge's requests so far.
func (j *Judging) Sent() []sample.Sample {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.sent)
}
