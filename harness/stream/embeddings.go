package stream

// Embeddings (POST /v1/embeddings), as OpenAI's reference gives it
// (https://platform.openai.com/docs/api-reference/embeddings/create) and
// vLLM, TEI and Ollama serve it: {"model", "input": [texts],
// "encoding_format": "float"} answered by {"data": [{"index",
// "embedding": [floats]}], "usage": {"prompt_tokens"}}. Not a stream: the
// sample's total is the whole body read, its TTFB the first byte; it has
// no first token.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"

	"github.com/llmsla/llmsla/harness/sample"
)

// embeddingsRequest is the body sent.
type embeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embeddingsResponse struct {
	Data  []embeddingsDatum `json:"data"`
	Model looseString       `json:"model"`
	Usage *struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

// embeddingsDatum is one input's vector.
type embeddingsDatum struct {
	Index     *int      `json:"index"`
	Embedding []float64 `json:"embedding"`
}

// maxEmbeddingsBody bounds the body read: 64 MiB is a batch of 2,048
// vectors of 3,072 floats written out in full.
const maxEmbeddingsBody = 64 << 20

// EmbeddingInputs are the texts an embeddings request embeds: the user
// messages' texts, in order (system messages are no input).
func EmbeddingInputs(req Request) []string {
	var in []string
	for _, m := range req.Messages {
		if m.Role != "system" && m.Role != "developer" {
			in = append(in, text(m))
		}
	}
	return in
}

func (c *Client) embeddingsBody(req Request) ([]byte, error) {
	in := EmbeddingInputs(req)
	if len(in) == 0 {
		return nil, errors.New("an embeddings request needs at least one input (a user message)")
	}
	return json.Marshal(embeddingsRequest{Model: c.ep.Model, Input: in, EncodingFormat: "float"})
}

// embed sends an embeddings request and times it into s.
func (c *Client) embed(parent context.Context, req Request, s *sample.Sample) {
	body, err := c.embeddingsBody(req)
	s.Inputs = len(EmbeddingInputs(req)) // carried, failed or not: the level's are embeddings requests
	if err != nil {
		s.Fail(&sample.RequestError{Kind: sample.KindOther, Message: "encoding request", Err: err})
		return
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	to := c.ep.Timeouts
	var tr phaseTrace
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, tr.trace()), http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		s.Fail(&sample.RequestError{Kind: sample.KindOther, Message: "building request", Err: err})
		return
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("Accept-Encoding", "identity")
	c.setKey(hreq.Header)
	for k, v := range c.ep.Headers {
		hreq.Header.Set(k, v)
	}
	t0 := time.Now()
	s.Start = t0
	if to.Total > 0 {
		defer time.AfterFunc(to.Total, func() { cancel(errTooLong) }).Stop()
	}
	var headerTimer *time.Timer
	if to.Headers > 0 {
		headerTimer = time.AfterFunc(to.Headers, func() { cancel(errNoHeaders) })
	}
	resp, err := c.http.Do(hreq)
	if headerTimer != nil {
		headerTimer.Stop()
	}
	tr.into(s, t0)
	if err != nil {
		s.Total = time.Since(t0)
		s.Fail(classify(ctx, parent, err))
		return
	}
	defer resp.Body.Close()
	s.Status = resp.StatusCode
	// The body has no id: the request id header (OpenAI's, vLLM's) is
	// what finds it in the server's logs.
	s.ID = c.sec.Cut(resp.Header.Get("X-Request-Id"), maxMeta)
	if resp.StatusCode != http.StatusOK {
		s.Total = time.Since(t0)
		s.Fail(statusError(resp, c.sec))
		return
	}
	var rb io.Reader = resp.Body
	if to.Idle > 0 {
		idle := watchIdle(to.Idle, func() { cancel(errIdle) })
		defer idle.stop()
		rb = idle.reader(rb)
	}
	b, err := io.ReadAll(io.LimitReader(rb, maxEmbeddingsBody+1))
	s.Total = time.Since(t0)
	switch {
	case err != nil:
		s.Fail(classify(ctx, parent, err))
		return
	case len(b) > maxEmbeddingsBody:
		s.Fail(&sample.RequestError{Kind: sample.KindProtocol, Status: s.Status, Message: fmt.Sprintf("embeddings body over %d MiB", maxEmbeddingsBody>>20)})
		return
	case !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json"):
		s.Fail(&sample.RequestError{Kind: sample.KindProtocol, Status: s.Status,
			Message: fmt.Sprintf("content type %q, want application/json", quote(c.sec, []byte(resp.Header.Get("Content-Type")), 80, false))})
		return
	}
	e, err := readEmbeddings(b, s.Inputs, s)
	if err != nil {
		s.Fail(&sample.RequestError{Kind: sample.KindProtocol, Status: s.Status, Message: quote(c.sec, []byte(err.Error()), maxMessage, false)})
		return
	}
	s.Content = e.Text()
	s.Finish = "stop"
}

// readEmbeddings checks a body against the request (a vector per input,
// each index once, one dimension, finite values) and summarises it.
func readEmbeddings(b []byte, inputs int, s *sample.Sample) (sample.Embedding, error) {
	var r embeddingsResponse
	if !fastEmbeddings(b, &r) {
		r = embeddingsResponse{} // what encoding/json makes of the body, and its error
		if err := json.Unmarshal(b, &r); err != nil {
			return sample.Embedding{}, fmt.Errorf("undecodable embeddings body: %w", err)
		}
	}
	if len(r.Data) != inputs {
		return sample.Embedding{}, fmt.Errorf("%d embeddings for %d inputs", len(r.Data), inputs)
	}
	vecs := make([][]float64, inputs)
	for k, d := range r.Data {
		i := k
		if d.Index != nil {
			i = *d.Index
		}
		switch {
		case i < 0 || i >= inputs:
			return sample.Embedding{}, fmt.Errorf("embedding index %d out of range [0, %d)", i, inputs)
		case vecs[i] != nil:
			return sample.Embedding{}, fmt.Errorf("embedding index %d given twice", i)
		case len(d.Embedding) == 0:
			return sample.Embedding{}, fmt.Errorf("embedding %d is empty", i)
		case len(d.Embedding) != len(r.Data[0].Embedding):
			return sample.Embedding{}, fmt.Errorf("embedding %d has dimension %d, embedding 0 %d", i, len(d.Embedding), len(r.Data[0].Embedding))
		}
		for _, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return sample.Embedding{}, fmt.Errorf("embedding %d holds %v", i, x)
			}
		}
		vecs[i] = d.Embedding
	}
	e := sample.Embedding{Dimension: len(vecs[0]), Inputs: inputs, Cosine: make([]float64, 0, inputs-1)}
	for _, v := range vecs[1:] {
		e.Cosine = append(e.Cosine, math.Round(cosine(vecs[0], v)*1e6)/1e6)
	}
	s.ResponseModel = string(r.Model)
	if len(s.ResponseModel) > maxMeta {
		s.ResponseModel = clip(s.ResponseModel, maxMeta)
	}
	if r.Usage != nil {
		if r.Usage.PromptTokens < 0 {
			return sample.Embedding{}, fmt.Errorf("usage.prompt_tokens %d is negative", r.Usage.PromptTokens)
		}
		s.PromptTokens, s.TokenSource = r.Usage.PromptTokens, sample.TokensUsage
	} else {
		s.TokenSource = sample.TokensEstimated // Do estimates the prompt
	}
	return e, e.Check()
}

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
