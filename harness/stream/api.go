package stream

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// API is the wire protocol an endpoint is served behind (config's api:
// key). Each is read by its own reader beside the chat one, into the same
// sample.Sample: chat completions (sse.go), OpenAI's Responses
// (responses.go), Anthropic's Messages (messages.go) and embeddings
// (embeddings.go, not a stream).
type API string

// The APIs, as the api: key names them.
const (
	APIChat       API = "chat"       // POST /v1/chat/completions, the default
	APIResponses  API = "responses"  // POST /v1/responses
	APIMessages   API = "messages"   // POST /v1/messages
	APIEmbeddings API = "embeddings" // POST /v1/embeddings
)

// APIs lists the APIs, in the order the docs give them.
var APIs = []API{APIChat, APIResponses, APIMessages, APIEmbeddings}

// DefaultAnthropicVersion is the anthropic-version header sent when the
// endpoint names none: the one version Anthropic's API has
// (docs.anthropic.com/en/api/versioning).
const DefaultAnthropicVersion = "2023-06-01"

// DefaultMessagesMaxTokens is the max_tokens sent to a Messages endpoint
// when the scenario sets none: the field is required there
// (docs.anthropic.com/en/api/messages), and this bound is far above any
// shipped scenario's answer.
const DefaultMessagesMaxTokens = 4096

// Or returns a, or APIChat when a is unset.
func (a API) Or() API {
	if a == "" {
		return APIChat
	}
	return a
}

// path is the API's path after the base URL's /v1.
func (a API) path() string {
	switch a {
	case APIResponses:
		return "/responses"
	case APIMessages:
		return "/messages"
	case APIEmbeddings:
		return "/embeddings"
	}
	return "/chat/completions"
}

// apiURL appends the endpoint's API path to its base URL, keeping the
// query (Azure's api-version, a gateway's key parameter).
func apiURL(ep Endpoint) string {
	p := ep.API.Or().path()
	u, err := url.Parse(ep.BaseURL)
	if err != nil {
		return strings.TrimRight(ep.BaseURL, "/") + p
	}
	u.Path = strings.TrimRight(u.Path, "/") + p
	u.RawPath = ""
	return u.String()
}

// setKey puts the API key where the endpoint's API reads it: Anthropic's
// x-api-key with its anthropic-version, else a bearer token.
func (c *Client) setKey(h http.Header) {
	if c.ep.API == APIMessages {
		v := c.ep.AnthropicVersion
		if v == "" {
			v = DefaultAnthropicVersion
		}
		h.Set("anthropic-version", v)
		if c.ep.APIKey != "" {
			h.Set("x-api-key", c.ep.APIKey)
		}
		return
	}
	if c.ep.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.ep.APIKey)
	}
}

// reader is the event reader of the endpoint's API, nil for chat's.
func (c *Client) reader() apiReader {
	switch c.ep.API {
	case APIResponses:
		return &responsesReader{}
	case APIMessages:
		return &messagesReader{}
	}
	return nil
}

// apiReader reads one dispatched SSE event of an API other than chat
// (its event field, its data, the instant its blank line was read) into
// the stream state, and reports whether the stream is over.
type apiReader interface {
	event(st *streamState, event, data []byte, now time.Time) bool
}

// apiBody serialises req for an API other than chat; ok is false for chat.
func (c *Client) apiBody(req Request) (body []byte, ok bool, err error) {
	switch c.ep.API {
	case APIResponses:
		b, err := json.Marshal(responsesBody(c.ep.Model, req))
		return b, true, err
	case APIMessages:
		w, err := messagesBody(c.ep.Model, req)
		if err != nil {
			return nil, true, err
		}
		b, err := json.Marshal(w)
		return b, true, err
	case APIEmbeddings:
		b, err := c.embeddingsBody(req)
		return b, true, err
	}
	return nil, false, nil
}

// text is a message's text: its content, or its text parts joined.
func text(m openai.ChatCompletionMessage) string {
	if m.Content != "" || len(m.MultiContent) == 0 {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.MultiContent {
		b.WriteString(p.Text)
	}
	return b.String()
}

// toolChoiceName is the function a chat tool_choice forces, "" for a
// string choice ("auto", "none", "required") or none.
func toolChoiceName(choice any) (name string, word string) {
	switch v := choice.(type) {
	case string:
		return "", v
	case openai.ToolChoice:
		return v.Function.Name, ""
	case *openai.ToolChoice:
		if v != nil {
			return v.Function.Name, ""
		}
	case map[string]any:
		if f, ok := v["function"].(map[string]any); ok {
			n, _ := f["name"].(string)
			return n, ""
		}
	}
	return "", ""
}

// schemaOf is a json_schema response format's name, schema and strictness.
func schemaOf(rf *openai.ChatCompletionResponseFormat) (name string, schema json.RawMessage, strict bool, ok bool) {
	if rf == nil || rf.Type != openai.ChatCompletionResponseFormatTypeJSONSchema || rf.JSONSchema == nil {
		return "", nil, false, false
	}
	b, err := json.Marshal(rf.JSONSchema.Schema)
	if err != nil {
		return "", nil, false, false
	}
	name = rf.JSONSchema.Name
	if name == "" {
		name = "answer"
	}
	return name, b, rf.JSONSchema.Strict, true
}
