package sim

// Embeddings (POST /v1/embeddings), in OpenAI's shape
// (https://platform.openai.com/docs/api-reference/embeddings/create):
// {"model", "input": a string or an array of strings, "dimensions"}
// answered, once the inputs would have been run through the model, with
// {"object":"list","data":[{"object":"embedding","index","embedding"}],
// "model","usage":{"prompt_tokens","total_tokens"}}. The latency is the
// first token's model over the inputs' words (TTFT plus prefill, scaled,
// jittered and drifting as for chat); the vectors are bags of hashed
// words, normalised, so that texts sharing words are similar and a
// fixture's related pair ranks above its unrelated one. Faults other than
// the status ones are not played here.

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	openai "github.com/sashabaranov/go-openai"
)

// EmbeddingDimension is the vectors' dimension when the request asks for
// none.
const EmbeddingDimension = 256

type embeddingsIn struct {
	Model      string          `json:"model"`
	Input      json.RawMessage `json:"input"`
	Dimensions int             `json:"dimensions"`
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	tr, cfg, gen := s.begin(time.Now())
	defer s.end(&tr, gen, false)
	tr.ID = "embd-sim" + strconv.Itoa(tr.Index)
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	var in embeddingsIn
	var inputs []string
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err == nil {
		var one string
		if json.Unmarshal(in.Input, &one) == nil {
			inputs = []string{one}
		} else {
			err = json.Unmarshal(in.Input, &inputs)
		}
	}
	switch {
	case err != nil:
		tr.Status = http.StatusBadRequest
		writeError(w, tr.Status, "could not parse the JSON body: "+err.Error(), "invalid_request_error", "")
		return
	case len(inputs) == 0:
		tr.Status = http.StatusBadRequest
		writeError(w, tr.Status, "input must not be empty", "invalid_request_error", "")
		return
	}
	dim := in.Dimensions
	if dim <= 0 {
		dim = EmbeddingDimension
	}
	req := openai.ChatCompletionRequest{Model: in.Model}
	for _, t := range inputs {
		req.Messages = append(req.Messages, chatMessage("user", t))
	}
	tr.Model, tr.PromptTokens, tr.PrefillTokens = in.Model, promptTokens(&req), promptTokens(&req)
	tr.Inputs, tr.Dimension = len(inputs), dim
	factor := cfg.scale() * tr.SlowFactor * jitter(draw(cfg.Seed, tr.Index, streamTTFT), cfg.TTFTJitter)
	tr.TTFTDelay = scaled(cfg.firstToken(tr.PromptTokens), factor)
	vecs := make([][]float64, len(inputs))
	for i, t := range inputs {
		vecs[i] = bagVector(t, dim)
	}
	for _, v := range vecs[1:] {
		tr.Cosine = append(tr.Cosine, math.Round(dot(vecs[0], v)*1e6)/1e6)
	}
	out := []byte(`{"object":"list","data":[`)
	for i, v := range vecs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"object":"embedding","index":`+strconv.Itoa(i)+`,"embedding":[`...)
		for k, x := range v {
			if k > 0 {
				out = append(out, ',')
			}
			out = strconv.AppendFloat(out, x, 'g', -1, 64)
		}
		out = append(out, "]}"...)
	}
	out = append(out, `],"model":`...)
	out = appendJSONString(out, in.Model)
	out = append(out, `,"usage":{"prompt_tokens":`+strconv.Itoa(tr.PromptTokens)+`,"total_tokens":`+strconv.Itoa(tr.PromptTokens)+`}}`...)

	t := time.NewTimer(time.Until(tr.Received.Add(tr.TTFTDelay)))
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return
	case <-t.C:
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.Header().Set("X-Request-Id", tr.ID)
	w.WriteHeader(http.StatusOK)
	tr.Status = http.StatusOK
	if _, err := w.Write(out); err == nil && rc.Flush() == nil {
		tr.Headers = time.Now()
		tr.Last, tr.Finish = tr.Headers, "stop"
	}
}

// bagVector is text's bag of words, each lower-cased word hashed to a
// coordinate and a sign, normalised to length 1.
func bagVector(text string, dim int) []float64 {
	v := make([]float64, dim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		h := fnv.New64a()
		h.Write([]byte(w))
		sum := h.Sum64()
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(dim)] += sign
	}
	n := math.Sqrt(dot(v, v))
	if n == 0 {
		v[0], n = 1, 1 // no word: a vector all the same
	}
	for i := range v {
		v[i] /= n
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
