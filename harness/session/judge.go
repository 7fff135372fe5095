package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/judge/rubric"
	"github.com/llmsla/llmsla/harness/ollama"
	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// judging is a session's judge (config.Judge): its endpoint's client (a
// simulator served for a simulated one), its cache, the judge's own
// samples file, and per scenario the rubric and question of each case.
// Judge requests go out after a level's measured requests, never among
// them (Session.send), and their samples go to a file of their own: no
// measured figure holds one.
type judging struct {
	cfg     *config.Judge // nil: no judge
	client  *stream.Client
	sim     *sim.Server // the judge's simulator, nil for a real endpoint
	cache   *judge.Cache
	sink    *sample.File
	rubrics rubric.Files

	identity     sync.Once
	judge        *judge.Judge
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

// openJudge prepares the configuration's judge, if it has one: serves its
// simulator, makes its client and opens its cache (a cache file that
// cannot be read fails here, before any request).
func (s *Session) openJudge(o Options) error {
	s.judging = &judging{cfg: s.cfg.Judge, plans: map[string]map[string]judgeCase{}, notes: map[string]string{}}
	j := s.judging
	if j.cfg == nil {
		return nil
	}
	ep := j.cfg.Endpoint
	if c := s.clients[ep.Name]; c != nil && j.cfg.AllowSelf {
		// The endpoint measured judges too: the same client and simulator.
		j.client, j.sim = c, s.sims[ep.Name]
		j.cfg.Endpoint = c.Endpoint()
		return s.openJudgeFiles(o)
	}
	if ep.Simulated {
		simCfg, err := s.cfg.Sim(ep.Name)
		if err != nil {
			return err
		}
		s.answers.Hook(&simCfg)
		j.sim = sim.New(simCfg)
		url, stop, err := sim.Serve(j.sim)
		if err != nil {
			return fmt.Errorf("judge %s: %w", ep.Name, err)
		}
		s.closers = append(s.closers, stop)
		ep.BaseURL = url + "/v1"
		j.cfg.Endpoint.BaseURL = ep.BaseURL
	}
	j.client = stream.NewClient(ep, stream.Secrets(s.secrets))
	return s.openJudgeFiles(o)
}

// openJudgeFiles opens the judge's cache and its samples file.
func (s *Session) openJudgeFiles(o Options) error {
	j := s.judging
	if j.cfg.Cache != "" {
		c, err := judge.OpenCache(j.cfg.Cache, s.secrets.RedactBytes, s.run.Rejudge)
		if err != nil {
			return err
		}
		j.cache = c
		s.closers = append(s.closers, func() { c.Close() })
	}
	if o.JudgeSamples != "" {
		f, err := sample.Create(o.JudgeSamples, s.secrets.RedactBytes)
		if err != nil {
			return fmt.Errorf("judge samples file: %w", err)
		}
		j.sink = f
		s.closers = append(s.closers, func() { f.Close() })
	}
	return nil
}

// JudgeSim returns the simulator behind a simulated judge endpoint, nil
// when the judge is real or there is none: tests count its requests.
func (s *Session) JudgeSim() *sim.Server { return s.judging.sim }

// planJudging loads the rubrics of a scenario's cases — its own (Rubric)
// for every case, a judged case's for that case — and remembers what each
// case asks, or why it is not judged. A rubric that does not load, or a
// case judged by a rubric alone with no judge to ask, is an error here,
// before any request.
func (s *Session) planJudging(sc Scenario, cases []quality.Case) error {
	j := s.judging
	off := s.cfg.Scenario(sc.Name, "").QualityOff
	plan := map[string]judgeCase{}
	var errs []error
	var rubricPaths []string
	for i := range cases {
		c := &cases[i]
		path, judged := c.JudgeRubric()
		if path == "" {
			path = sc.Rubric
		}
		switch {
		case judged && path == "":
			errs = append(errs, fmt.Errorf("%s:%d: match.rubric: the case is judged by a rubric and names none, nor does scenario %s (Rubric)", c.File, c.Line, sc.Name))
			continue
		case path == "":
			continue
		case judged && j.cfg == nil && !off:
			errs = append(errs, fmt.Errorf("%s:%d: match: the case is judged by a rubric alone, and no judge endpoint is configured (judge: {endpoint: …} in the SLA file): its answers would not be checked at all", c.File, c.Line))
			continue
		}
		r, seen, err := s.rubric(path)
		if err != nil {
			if !seen {
				errs = append(errs, err)
			}
			continue
		}
		rubricPaths = appendNew(rubricPaths, path)
		plan[c.ID] = judgeCase{rubric: r, item: rubric.Item{Case: c.ID, Question: questionOf(c), Reference: c.Answer}}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.notes, sc.Name)
	switch {
	case len(plan) == 0:
		delete(j.plans, sc.Name)
	case off:
		j.notes[sc.Name] = fmt.Sprintf("scenario %s: quality: off, so no judge is asked", sc.Name)
	case j.cfg == nil:
		j.notes[sc.Name] = fmt.Sprintf("scenario %s: no judge endpoint is configured (judge: {endpoint: …} in the SLA file), so its answers are not judged by %s and judge_pass is not measured",
			sc.Name, strings.Join(rubricPaths, ", "))
	default:
		j.plans[sc.Name] = plan
	}
	return nil
}

// rubric loads a rubric named relative to the module root, once; seen
// says it was asked before.
func (s *Session) rubric(path string) (r *rubric.Rubric, seen bool, err error) {
	abs, err := FromRoot(path)
	if err != nil {
		return nil, false, err
	}
	return s.judging.rubrics.Get(filepath.Clean(abs))
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

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// JudgeNote says why a scenario's answers are not judged though it names
// a rubric ("" when they are, or it names none): the glue and llmsla
// bench say it, so that a run without a judge does not read as judged.
func (s *Session) JudgeNote(scenario string) string {
	s.judging.mu.Lock()
	defer s.judging.mu.Unlock()
	return s.judging.notes[scenario]
}

// judges reports whether the cell's answers are judged.
func (s *Session) judges(c Cell) bool {
	j := s.judging
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cfg != nil && j.plans[c.Scenario] != nil && !c.Settings.QualityOff
}

// judgeLevel asks the judge about every measured answer of a level that
// has a quality check and a rubric, folds each judgment into the answer's
// quality, and writes the measured samples (held back until judged). It
// runs after the level's last measured request has ended.
func (s *Session) judgeLevel(ctx context.Context, c Cell, samples []sample.Sample) {
	j := s.judging
	j.mu.Lock()
	plan := j.plans[c.Scenario]
	j.mu.Unlock()
	var asks []judge.Ask
	var at []int
	for i := range samples {
		smp := &samples[i]
		jc, ok := plan[smp.Case]
		if !smp.Measured() || smp.Quality == nil || !ok {
			continue
		}
		if smp.ContentCut {
			quality.SetJudgeFailure(smp.Quality, fmt.Sprintf("%v: the answer was cut at the capture limit", judge.ErrUnjudgeable))
			continue
		}
		item := jc.item
		item.Answer = smp.Content
		asks = append(asks, judge.Ask{Rubric: jc.rubric, Item: item})
		at = append(at, i)
	}
	label := c.Level.Label()
	results := s.theJudge(ctx).Judge(ctx, asks, func(js *sample.Sample, _ judge.Ask) {
		js.Scenario, js.Level = c.Scenario, label
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
	for i := range samples {
		if samples[i].Measured() && s.sink != nil {
			s.sink.Write(&samples[i])
		}
	}
}

// record keeps a judge request's sample, and writes it to the judge's file.
func (j *judging) record(s *sample.Sample) {
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
// model, and the digest of its weights where the server says) keys the
// cache.
func (s *Session) theJudge(ctx context.Context) *judge.Judge {
	j := s.judging
	j.identity.Do(func() { j.judge, j.identityNote = s.newJudge(ctx, j.cfg.Endpoint, j.client) })
	return j.judge
}

// newJudge is a judge asking ep through c and the session's judge cache,
// with the judge: block's seed, budget and concurrency; note says why the
// digest of its weights is unknown, where it could be known.
func (s *Session) newJudge(ctx context.Context, ep stream.Endpoint, c *stream.Client) (jd *judge.Judge, note string) {
	jc := s.judging.cfg
	id := judge.Identity{Model: ep.Model, Seed: jc.Seed, MaxTokens: jc.MaxTokens}
	switch {
	case ep.Simulated:
		simCfg, _ := s.cfg.Sim(ep.Name) // checked when it was served
		id.Digest = simCfg.JudgeDigest()
	case ep.Kind == "ollama":
		dctx, cancel := context.WithTimeout(ctx, digestTimeout)
		d, err := ollama.Digest(dctx, ollama.Host(ep.BaseURL), ep.Model)
		cancel()
		id.Digest = d
		if err != nil {
			note = fmt.Sprintf("judge %s: the model's digest is unknown (%v): its cached judgments are keyed by the model's name alone", ep.Name, err)
		}
	}
	return &judge.Judge{Name: ep.Name, Identity: id, Doer: c, Cache: s.judging.cache, Concurrency: jc.Concurrency}, note
}

// JudgeOn is a judge asking the endpoint named — the configuration's
// judge, or one of its measured endpoints — through the session's judge
// cache and settings: llmsla judge calibrate holds judges to labels and
// to each other. It needs a judge: block (the cache, seed and budget).
func (s *Session) JudgeOn(ctx context.Context, name string) (*judge.Judge, string, error) {
	j := s.judging
	switch {
	case j.cfg == nil:
		return nil, "", fmt.Errorf("%s has no judge: block (judge: {endpoint: …}): name the judge and its settings there", s.cfg.Source)
	case name == "" || name == j.cfg.Endpoint.Name:
		jd := s.theJudge(ctx)
		return jd, j.identityNote, nil
	}
	ep, ok := s.Endpoint(name)
	if !ok {
		return nil, "", fmt.Errorf("no endpoint named %q (have: %s, and the judge %s)", name, strings.Join(s.cfg.EndpointNames(), ", "), j.cfg.Endpoint.Name)
	}
	jd, note := s.newJudge(ctx, ep, s.clients[name])
	return jd, note, nil
}

// JudgeReport is what the session's judge did: the answers it judged, how
// many came from its cache, and the account of its own requests (latency,
// failures, tokens), which no measured figure holds; ok is false without
// a judge.
type JudgeReport struct {
	Judged, Cached int
	Account        judge.Account
	Note           string // about the judge's identity, "" when none
	CacheErr       error  // the cache file's first write error
}

// JudgeReport reports the session's judge so far.
func (s *Session) JudgeReport() (JudgeReport, bool) {
	j := s.judging
	if j.cfg == nil {
		return JudgeReport{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	r := JudgeReport{Judged: j.judged, Cached: j.cached, Note: j.identityNote, CacheErr: j.cache.Err(),
		Account: judge.Account{Judge: j.cfg.Endpoint.Name, Failed: map[string]int{}}}
	if accts := judge.Summarize(j.sent); len(accts) == 1 {
		r.Account = accts[0]
	}
	return r, true
}

// String is the report on one line.
func (r JudgeReport) String() string {
	return fmt.Sprintf("%d answers judged, %d from the cache; %s", r.Judged, r.Cached, r.Account)
}
