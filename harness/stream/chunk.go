package stream

import (
	"encoding/json"
	"errors"

	openai "github.com/sashabaranov/go-openai"
)

// chunk is the union of what a chat stream event can carry, errors
// included (OpenAI's {"error":…} in any key order and vLLM's
// {"object":"error",…}), in the shapes the servers llmsla is pointed at
// send (testdata/vendors holds one recorded stream of each). It decodes
// what the timing, the token counts, the tool calls and the provenance
// need; encoding/json decodes it as it is declared, and fastChunk to the
// same values (FuzzFastChunk).
type chunk struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	// Model and SystemFingerprint say what answered. They are provenance
	// only: a value of another type than a string is dropped, never a
	// broken stream.
	Model             looseString     `json:"model"`
	SystemFingerprint looseString     `json:"system_fingerprint"`
	Choices           []choice        `json:"choices"`
	Usage             *chunkUsage     `json:"usage"`
	XGroq             *xGroq          `json:"x_groq"`  // Groq: its usage, and an error that stopped the stream
	Timings           *timings        `json:"timings"` // llama.cpp
	Error             json.RawMessage `json:"error"`
	Message           string          `json:"message"`
}

type choice struct {
	Delta        delta               `json:"delta"`
	FinishReason openai.FinishReason `json:"finish_reason"`
}

type delta struct {
	Content          content       `json:"content"`
	ReasoningContent string        `json:"reasoning_content"` // DeepSeek, vLLM, SGLang, llama.cpp
	Reasoning        string        `json:"reasoning"`         // Ollama, vLLM ≥ 0.10, OpenRouter, Groq
	Refusal          string        `json:"refusal"`
	ToolCalls        toolDeltas    `json:"tool_calls"`
	FunctionCall     *toolFunction `json:"function_call"` // the deprecated single-function form
}

// content is delta.content: a string (every server), or an array of typed
// parts (Mistral's Magistral: {"type":"thinking","thinking":[{"type":
// "text","text":…}]} and {"type":"text","text":…}). Text parts are the
// answer; thinking and reasoning parts are reasoning; other parts
// (references, images) carry neither.
type content struct {
	Text     string
	Thinking string
}

// contentPart is one element of an array content.
type contentPart struct {
	Type     string       `json:"type"`
	Text     string       `json:"text"`
	Thinking thinkingText `json:"thinking"`
}

// The part types that carry text.
const (
	partText      = "text"
	partThinking  = "thinking"
	partReasoning = "reasoning"
)

// UnmarshalJSON: null leaves c as it is (as for a string field); a string
// is the answer; an array is parts. Anything else is an error.
func (c *content) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case 'n':
		return nil
	case '"':
		return json.Unmarshal(b, &c.Text)
	case '[':
		var parts []contentPart
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		*c = content{}
		for _, p := range parts {
			c.addPart(p.Type, p.Text, string(p.Thinking))
		}
		return nil
	}
	return errors.New("content is neither a string nor an array of parts")
}

// addPart adds one part's text where its type says it goes.
func (c *content) addPart(typ, text, thinking string) {
	switch typ {
	case partText:
		c.Text += text
	case partThinking, partReasoning:
		c.Thinking += text + thinking
	}
}

// thinkingText is a thinking part's "thinking": Mistral sends an array of
// text parts; a string is taken too. null leaves it as it is.
type thinkingText string

func (t *thinkingText) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case 'n':
		return nil
	case '"':
		return json.Unmarshal(b, (*string)(t))
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var s string
		for _, p := range parts {
			if p.Type == partText {
				s += p.Text
			}
		}
		*t = thinkingText(s)
		return nil
	}
	return errors.New("thinking is neither a string nor an array of parts")
}

// toolDeltas is delta.tool_calls: an array of call deltas, or one call
// delta as an object (TGI before 3.2 sends that).
type toolDeltas []toolDelta

func (t *toolDeltas) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case 'n':
		*t = nil
		return nil
	case '{':
		var d toolDelta
		if err := json.Unmarshal(b, &d); err != nil {
			return err
		}
		*t = toolDeltas{d}
		return nil
	}
	return json.Unmarshal(b, (*[]toolDelta)(t))
}

// toolDelta is one streamed piece of a tool call. Index is nil when the
// server sends none (Gemini, older Ollama): the delta then continues the
// last call, or starts one (see toolAssembler).
type toolDelta struct {
	Index    *int         `json:"index"`
	ID       string       `json:"id"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name      string    `json:"name"`
	Arguments arguments `json:"arguments"`
}

// arguments is a call's arguments: a string of JSON as OpenAI sends it,
// or a JSON value some servers send instead, kept as its text.
type arguments string

func (a *arguments) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case 'n':
		return nil
	case '"':
		return json.Unmarshal(b, (*string)(a))
	}
	*a = arguments(b)
	return nil
}

// looseString is a string, or nothing when the value is of another type.
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	if b[0] == '"' {
		return json.Unmarshal(b, (*string)(s))
	}
	return nil
}

// chunkUsage is what the servers put in a chunk's usage (and Groq in
// x_groq.usage). The cache and reasoning details are pointers where zero
// is a figure: absent is unknown.
type chunkUsage struct {
	PromptTokens            int                `json:"prompt_tokens"`
	CompletionTokens        int                `json:"completion_tokens"`
	TotalTokens             int                `json:"total_tokens"`
	PromptTokensDetails     *promptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *completionDetails `json:"completion_tokens_details"`
	// PromptCacheHitTokens is DeepSeek's name for the cached tokens.
	PromptCacheHitTokens *int `json:"prompt_cache_hit_tokens"`
}

type promptDetails struct {
	CachedTokens *int `json:"cached_tokens"`
}

type completionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// xGroq is Groq's x_groq: the usage in the last chunk, and an error that
// stopped the stream early.
type xGroq struct {
	Usage *chunkUsage     `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// timings is llama.cpp's: cache_n is the prompt tokens reused from the
// cache.
type timings struct {
	CacheN *int `json:"cache_n"`
}

// decodeChunk decodes one event's data: the fast path for the usual
// shapes, encoding/json for anything else (and for the error of a
// malformed one).
func decodeChunk(data []byte, c *chunk, in *intern) error {
	if fastChunk(data, c, in) {
		return nil
	}
	*c = chunk{}
	return json.Unmarshal(data, c)
}

// isSet: an error value that is there and not null.
func isSet(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
