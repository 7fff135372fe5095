package stream_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/load"
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
			cfg := truthBase
			cfg.TTFT = 20e6
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
