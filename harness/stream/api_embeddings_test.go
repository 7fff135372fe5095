package stream_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// embedTriple is one request of three inputs: an anchor, a text that
// shares its words, and one that shares none.
func embedTriple(i int) load.Prompt {
	return load.Prompt{Request: stream.Request{Messages: []openai.ChatCompletionMessage{
		{Role: "user", Content: fmt.Sprintf("the invoice %d was paid late by the customer", i)},
		{Role: "user", Content: fmt.Sprintf("the customer paid invoice %d late", i)},
		{Role: "user", Content: "mountains glaciers snow winter hiking"}}}}
}

// embedTruth is the embeddings endpoint at conc streams: above one, out
// of step as in truthAt100, for bodies that land in the same instant queue
// for two cores, and the test would time that queue, not the client.
func embedTruth(conc int) sim.Config {
	cfg := truthBase
	cfg.TTFT = 20e6
	if conc > 1 {
		cfg = truthAt100(cfg)
	}
	return cfg
}

// TestEmbeddingsEqualTruth: every embeddings request's end, prompt
// tokens, vector dimension and the cosine similarities of its vectors are
// what the simulator sent, at concurrency 1 and 50; the related input
// ranks above the unrelated one.
func TestEmbeddingsEqualTruth(t *testing.T) {
	for _, conc := range []int{1, 50} {
		t.Run(fmt.Sprintf("concurrency=%d", conc), func(t *testing.T) {
			if conc > 1 && testing.Short() {
				t.Skip("-short")
			}
			cfg := embedTruth(conc)
			againstTruth(t, func() ([]sample.Sample, []sim.Truth) {
				return runAPI(t, stream.APIEmbeddings, cfg, conc, 3*conc+20, embedTriple)
			}, compareEmbeddings)
		})
	}
}

func compareEmbeddings(t *recorder, samples []sample.Sample, truth []sim.Truth, widen slack) bool {
	byID := map[string]sim.Truth{}
	for _, tr := range truth {
		byID[tr.ID] = tr
	}
	var ends []float64
	for _, s := range samples {
		tr, ok := byID[s.ID]
		if !s.OK() || !ok {
			t.Errorf("sample %d: %q failed or has no truth (%s)", s.Seq, s.ID, s.Err)
			return false
		}
		e, err := sample.ReadEmbedding(s.Content)
		if err != nil {
			t.Errorf("%s: content %q: %v", s.ID, s.Content, err)
			return false
		}
		if s.PromptTokens != tr.PromptTokens || s.TokenSource != sample.TokensUsage || e.Dimension != tr.Dimension || e.Inputs != tr.Inputs || len(e.Cosine) != len(tr.Cosine) {
			t.Errorf("%s: %d prompt tokens (%s), %+v; truth %d tokens, %d inputs of dimension %d", s.ID, s.PromptTokens, s.TokenSource, e, tr.PromptTokens, tr.Inputs, tr.Dimension)
			return false
		}
		for k := range e.Cosine {
			if math.Abs(e.Cosine[k]-tr.Cosine[k]) > 2e-6 {
				t.Errorf("%s: cosine %v, truth %v", s.ID, e.Cosine, tr.Cosine)
				return false
			}
		}
		if e.Cosine[0] <= e.Cosine[1] {
			t.Errorf("%s: related %.3f not above unrelated %.3f", s.ID, e.Cosine[0], e.Cosine[1])
			return false
		}
		ends = append(ends, ms(s.Start.Add(s.Total).Sub(tr.Last)))
	}
	d := stats.Describe(ends)
	t.logf("end error p50 %.3f p90 %.3f max %.3f ms", d.P50, d.P90, d.Max)
	if math.Abs(d.P50) > medianBound+widen.median || d.P90 > p90Bound+widen.p90 {
		t.Errorf("end: error p50 %.3f p90 %.3f ms, beyond ±%.3f / %.3f ms (n=%d)", d.P50, d.P90, medianBound+widen.median, p90Bound+widen.p90, d.N)
		return false
	}
	return true
}

// TestHostileEmbeddings: a body that does not answer the request — a
// vector short, an index out of range or twice, dimensions that differ,
// not JSON — is a protocol error naming what is wrong; a 429 a rate limit.
func TestHostileEmbeddings(t *testing.T) {
	js := map[string]string{"Content-Type": "application/json"}
	two := stream.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}}
	cases := map[string]struct {
		status int
		header map[string]string
		body   string
		kind   sample.ErrorKind
		says   string
	}{
		"fine":                   {header: js, body: `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0.6,0.8]}],"usage":{"prompt_tokens":2}}`},
		"a vector short":         {header: js, body: `{"data":[{"index":0,"embedding":[1,0]}]}`, kind: sample.KindProtocol, says: "1 embeddings for 2 inputs"},
		"an index out of range":  {header: js, body: `{"data":[{"index":0,"embedding":[1,0]},{"index":7,"embedding":[1,0]}]}`, kind: sample.KindProtocol, says: "out of range"},
		"an index twice":         {header: js, body: `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[1,0]}]}`, kind: sample.KindProtocol, says: "twice"},
		"dimensions that differ": {header: js, body: `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0,0]}]}`, kind: sample.KindProtocol, says: "dimension 3"},
		"not JSON":               {header: js, body: `{"data":[`, kind: sample.KindProtocol, says: "undecodable"},
		"an event stream":        {body: "data: {}\n\n", kind: sample.KindProtocol, says: "content type"},
		"a 429":                  {status: 429, header: map[string]string{"Retry-After": "3", "Content-Type": "application/json"}, body: `{"error":{"message":"slow down"}}`, kind: sample.KindRateLimited},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = 200
			}
			url, _, _ := apiServer(t, status, tc.header, tc.body)
			c := stream.NewClient(stream.Endpoint{Name: "h", BaseURL: url, Model: "m", API: stream.APIEmbeddings})
			defer c.CloseIdle()
			s := c.Do(t.Context(), two)
			if s.ErrKind != tc.kind || (tc.says != "" && !strings.Contains(s.Err, tc.says)) {
				t.Errorf("%s: %q, want %s saying %q", s.ErrKind, s.Err, tc.kind, tc.says)
			}
			if tc.kind == "" && s.Content != `{"dimension":2,"inputs":2,"cosine":[0.6]}` {
				t.Errorf("content %s", s.Content)
			}
		})
	}
}

// embedBatch is request i of 3 + i%5 inputs: an anchor, its paraphrase
// and unrelated texts, so that a level's inputs are not a multiple of
// its requests.
func embedBatch(i int) load.Prompt {
	p := embedTriple(i)
	for k := range i % 5 {
		p.Request.Messages = append(p.Request.Messages, openai.ChatCompletionMessage{Role: "user", Content: fmt.Sprintf("unrelated text number %d about rivers", k)})
	}
	return p
}

// TestEmbeddingsInputRateEqualsTruth: a level's inputs/s (the metric
// table's input_rate) is the inputs the simulator embedded over the
// window it served them in, within the timing error measured on the same
// requests: how much earlier each started than the simulator received it,
// how much later each ended than the simulator's last write; and its
// tokens/s the prompt tokens it counted over that window.
func TestEmbeddingsInputRateEqualsTruth(t *testing.T) {
	for _, conc := range []int{1, 8} {
		t.Run(fmt.Sprintf("concurrency=%d", conc), func(t *testing.T) {
			cfg := embedTruth(conc)
			againstTruth(t, func() ([]sample.Sample, []sim.Truth) {
				return runAPI(t, stream.APIEmbeddings, cfg, conc, 4*conc+20, embedBatch)
			}, compareInputRate)
		})
	}
}

func compareInputRate(t *recorder, samples []sample.Sample, truth []sim.Truth, widen slack) bool {
	byID := map[string]sim.Truth{}
	for _, tr := range truth {
		byID[tr.ID] = tr
	}
	var inputs, tokens int
	var first, last time.Time
	var early, late time.Duration // the largest timing errors, each side
	for _, s := range samples {
		tr, ok := byID[s.ID]
		if !s.OK() || !ok || tr.Status != 200 {
			t.Errorf("sample %d: %q failed or has no truth (%s)", s.Seq, s.ID, s.Err)
			return false
		}
		if s.Inputs != tr.Inputs {
			t.Errorf("%s: %d inputs, the simulator embedded %d", s.ID, s.Inputs, tr.Inputs)
			return false
		}
		inputs, tokens = inputs+tr.Inputs, tokens+tr.PromptTokens
		if first.IsZero() || tr.Received.Before(first) {
			first = tr.Received
		}
		if tr.Last.After(last) {
			last = tr.Last
		}
		early = max(early, tr.Received.Sub(s.Start))
		late = max(late, s.Start.Add(s.Total).Sub(tr.Last))
	}
	st := stats.Summarize(samples, nil)
	served := last.Sub(first).Seconds()
	// The client's window is the simulator's widened by at most the
	// largest error each side: the rate is off by that share.
	bound := (early + late).Seconds() + widen.p90/1e3
	want := float64(inputs) / served
	got, n := metric.ByName("input_rate").Value(st)
	t.logf("%d inputs in %d requests over %.1f ms served: %.1f inputs/s, measured %.1f (n=%d); timing error %.2f + %.2f ms", inputs, len(samples), served*1e3, want, got, n, ms(early), ms(late))
	switch {
	case st.Inputs != inputs || n != len(samples):
		t.Errorf("the level counted %d inputs of %d requests, the simulator embedded %d in %d", st.Inputs, n, inputs, len(samples))
		return false
	case math.Abs(st.Wall.Seconds()-served) > bound:
		t.Errorf("wall %.3f ms, the simulator served over %.3f ms: beyond the timing error %.3f ms", ms(st.Wall), served*1e3, bound*1e3)
		return false
	case math.Abs(got-want) > want*bound/served:
		t.Errorf("inputs/s %.2f, the simulator's %.2f: beyond the timing error's share %.4f", got, want, bound/served)
		return false
	case math.Abs(st.TokPerSec-float64(tokens)/served) > float64(tokens)/served*bound/served:
		t.Errorf("tokens/s %.2f, the simulator's %.2f", st.TokPerSec, float64(tokens)/served)
		return false
	}
	return true
}
