package load

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/quality"
	"github.com/llmsla/llmsla/harness/stream"
)

// FixtureOptions say how a fixture's cases become requests.
type FixtureOptions struct {
	System string // system prompt sent before each case's messages
	// Structured asks for structured output: response_format json_schema
	// with the case's schema (json_object when it has none).
	Structured bool
	Lenient    bool // accept JSON inside a fence or prose, counted apart
	// Temperature and Seed make answers deterministic where the endpoint
	// allows it.
	Temperature *float32
	Seed        *int
	// NoChecks sends the cases without judging the answers: latency and
	// errors only (quality: off, llmsla bench -latency-only).
	NoChecks bool
}

// Fixture is the Source of a scenario's fixture cases: prompt i asks case
// i mod the number of cases, so that a run of at least as many requests as
// cases asks every one.
type Fixture struct {
	prompts    []Prompt
	conversing bool // a case is a conversation (turns:)
}

// NewFixture builds the requests and checks of cases once, before any
// request is sent (a structured scenario reads each case's schema here).
func NewFixture(cases []quality.Case, o FixtureOptions) (*Fixture, error) {
	if len(cases) == 0 {
		return nil, fmt.Errorf("no cases: a scenario needs cases to send")
	}
	f := &Fixture{prompts: make([]Prompt, len(cases))}
	for i := range cases {
		c := &cases[i]
		var msgs []openai.ChatCompletionMessage
		if o.System != "" {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: "system", Content: o.System})
		}
		for _, m := range c.Render() {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
		}
		var chk *quality.Check
		if !o.NoChecks {
			chk = quality.NewCheck(c)
			chk.Lenient = o.Lenient
		}
		conv := newConversation(c, msgs, chk)
		f.conversing = f.conversing || c.IsConversation()
		req := stream.Request{Messages: conv.First, Temperature: o.Temperature, Seed: o.Seed}
		if o.Structured {
			rf, err := responseFormat(c)
			if err != nil {
				return nil, fmt.Errorf("case %s: %w", c.ID, err)
			}
			req.ResponseFormat = rf
		}
		req.Tools, req.ToolChoice = tools(c)
		f.prompts[i] = Prompt{Request: req, Case: c.ID, Check: conv.firstCheck(), Conversation: conv}
		if c.IsLoop() {
			f.prompts[i].Agent = newAgent(c)
		}
	}
	return f, nil
}

// Prompt is case i mod the number of cases.
func (f *Fixture) Prompt(i int) Prompt { return f.prompts[i%len(f.prompts)] }

// Len is the number of cases.
func (f *Fixture) Len() int { return len(f.prompts) }

// responseFormat asks for the case's schema as structured output.
func responseFormat(c *quality.Case) (*openai.ChatCompletionResponseFormat, error) {
	if c.SchemaFile == "" {
		return &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}, nil
	}
	b, err := os.ReadFile(c.SchemaFile)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(c.SchemaFile), filepath.Ext(c.SchemaFile))
	return &openai.ChatCompletionResponseFormat{
		Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: json.RawMessage(b)},
	}, nil
}

// Shift is src moved on by k positions: prompt i of the result is prompt
// k + i of src. Runs that continue where the last one stopped walk the
// whole fixture over several runs and levels.
func Shift(src Source, k int) Source {
	return SourceFunc(func(i int) Prompt { return src.Prompt(k + i) })
}

// FixedTokens is src asking every answer for exactly n tokens
// (stream.Request.FixedTokens), n its cap too.
func FixedTokens(src Source, n int) Source {
	return SourceFunc(func(i int) Prompt {
		p := src.Prompt(i)
		p.Request.MaxTokens, p.Request.FixedTokens = n, n
		return p
	})
}

// AsAsked is src with every request that names its max_tokens asked for
// exactly that many tokens (a trace's row, whose output length is what
// production's answer had): the decode load the rows asked, on servers
// that take min_tokens or ignore_eos.
func AsAsked(src Source) Source {
	return SourceFunc(func(i int) Prompt {
		p := src.Prompt(i)
		if p.Request.MaxTokens > 0 {
			p.Request.FixedTokens = p.Request.MaxTokens
		}
		return p
	})
}

// MaxTokens is src with every request capped at n output tokens (the
// scenario's setting on one endpoint).
func MaxTokens(src Source, n int) Source {
	return SourceFunc(func(i int) Prompt {
		p := src.Prompt(i)
		p.Request.MaxTokens = n
		return p
	})
}

// tools is what a tool case offers the model, and its tool_choice as the
// case wrote it (nil: the server's default).
func tools(c *quality.Case) ([]openai.Tool, any) {
	if len(c.Tools) == 0 {
		return nil, nil
	}
	out := make([]openai.Tool, len(c.Tools))
	for i, t := range c.Tools {
		out[i] = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Strict: t.Strict, Parameters: json.RawMessage(t.Parameters)}}
	}
	var choice any
	if len(c.ToolChoice) > 0 {
		choice = json.RawMessage(c.ToolChoice)
	}
	return out, choice
}

// Steps is the most requests one prompt of the fixture sends: an agent
// loop's max_steps, 1 for a fixture without loops. A plan counts a
// measured prompt as up to this many requests.
func (f *Fixture) Steps() int {
	n := 1
	for _, p := range f.prompts {
		if p.Agent != nil {
			n = max(n, p.Agent.MaxSteps)
		}
	}
	return n
}
