package stream

// Kind is what serves an endpoint, as far as a request must know: which
// parameters outside OpenAI's API it takes (a fixed answer length) and
// which native API beside it can be asked (Ollama's timings). OpenAI's
// API, and any server that takes only its parameters, is KindOpenAI.
type Kind string

// The kinds of endpoint (config's kind: key).
const (
	KindOpenAI Kind = "openai"
	KindOllama Kind = "ollama"
	// KindVLLM takes vLLM's extra sampling parameters (min_tokens,
	// ignore_eos: docs.vllm.ai, "OpenAI Compatible Server", extra
	// parameters).
	KindVLLM Kind = "vllm"
	// KindSGLang takes SGLang's (min_tokens, ignore_eos in its chat
	// completion request).
	KindSGLang Kind = "sglang"
	// KindLlamaCpp is llama.cpp's server, whose OpenAI-compatible endpoint
	// passes its completion options through (ignore_eos).
	KindLlamaCpp Kind = "llamacpp"
)

// Kinds lists the kinds, in the order the docs give them.
var Kinds = []Kind{KindOpenAI, KindOllama, KindVLLM, KindSGLang, KindLlamaCpp}

// FixedLength reports whether the kind's server can be asked for an answer
// of exactly n tokens — its end-of-sequence token ignored — and with which
// parameters beside max_tokens: min_tokens (vLLM, SGLang) and ignore_eos.
// OpenAI's API and Ollama's OpenAI-compatible one cannot.
func (k Kind) FixedLength() (minTokens, ignoreEOS, ok bool) {
	switch k {
	case KindVLLM, KindSGLang:
		return true, true, true
	case KindLlamaCpp:
		return false, true, true
	}
	return false, false, false
}
