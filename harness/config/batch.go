package config

import (
	"fmt"
	"slices"
	"strconv"

	openai "github.com/sashabaranov/go-openai"
	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/load"
)

// Batch sizes (batch:) are a level key of embeddings scenarios: how many
// inputs each request carries, as a retrieval service's indexer batches
// its texts. A case of the embeddings fixture is three inputs (an anchor,
// a related text and an unrelated one) whose ranking is its answer, so a
// batch is at least those three and at most OpenAI's limit of inputs a
// request.
const (
	MinBatch = 3
	MaxBatch = 2048
)

// batchRow reads batch: [8, 32].
var batchRow = row[*scenarioAt]{"batch", "embeddings levels: each request carries this many inputs (its case's, then the next cases' texts)",
	func(p *configParser, s *scenarioAt, v *yaml.Node, key string) {
		s.Batch = nil
		p.list(v, key, "[3, 8, 32]", func(n *yaml.Node) {
			b, err := strconv.Atoi(n.Value)
			switch {
			case n.Kind != yaml.ScalarNode || err != nil || b < MinBatch || b > MaxBatch:
				p.errf(n, key, "%q is not a batch size: want a whole number from %d (a case's anchor, related and unrelated texts) to %d (OpenAI's most inputs a request)", n.Value, MinBatch, MaxBatch)
				return
			case slices.Contains(s.Batch, b):
				p.errf(n, key, "%d is listed twice: each batch size is a level", b)
			}
			s.Batch = append(s.Batch, b)
		})
	}}

// checkBatch reports a batch that cannot make levels: with synthetic
// prompts (one text each, no case to rank), or several sizes under a
// search whose steps are one level each.
func (p *configParser) checkBatch(sc Scenario, key string, set map[string]*yaml.Node) {
	v, ok := set["batch"]
	if !ok {
		return
	}
	switch {
	case len(sc.PromptTokens) > 0:
		p.errf(v, key+".batch", "a batch carries the fixture's texts, and prompt_tokens sends synthetic prompts instead: drop one of them")
	case len(sc.Batch) > 1 && (sc.Capacity != nil || sc.Sweep != nil):
		p.errf(v, key+".batch", "a capacity search or sweep steps through one batch size: give one (batch: %d), or run the sizes as levels without the search", sc.Batch[0])
	}
}

// keyAt is a key the file writes, and its line.
type keyAt struct {
	key  string
	line int
}

// keepBatch keeps where scenario's settings at key (the mapping n) write
// batch:, for CheckBatch.
func (c *Config) keepBatch(scenario, key string, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "batch" {
			if c.batches == nil {
				c.batches = map[string][]keyAt{}
			}
			c.batches[scenario] = append(c.batches[scenario], keyAt{key + ".batch", n.Content[i].Line})
		}
	}
}

// CheckBatch refuses, with file and line, a batch: on a scenario that
// does not embed (embeds says which do, as the suites define them): its
// requests are a prompt each, and a batch would fold the next cases'
// messages into one generation request, under a level labelled batch=8.
func (c *Config) CheckBatch(embeds func(scenario string) bool) error {
	var errs []error
	names := make([]string, 0, len(c.batches))
	for name := range c.batches {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if embeds(name) {
			continue
		}
		for _, k := range c.batches[name] {
			errs = append(errs, &fileError{c.Source, k.line, k.key,
				fmt.Sprintf("%s sends generation requests, a prompt each: batch: (inputs per request) is allowed on embeddings scenarios only (the shipped embeddings, or one defined with Embeddings: true); remove it", name)})
		}
	}
	return joinErrors(errs)
}

// searchBatch is the batch of a search's steps (RateLevel): the
// scenario's one size, or a case a request.
func (sc Scenario) searchBatch() int {
	if len(sc.Batch) == 1 {
		return sc.Batch[0]
	}
	return 0
}

// Source is src as level l sends it. With a batch, request i carries
// Batch inputs: its prompt's user messages (its case, kept whole and
// first, so that its check ranks them), then those of the prompts after
// it, in order, cut at Batch, skipping the case's own when a small
// fixture comes round again; it looks at most Batch prompts ahead, so
// that prompts without texts cannot hold it (a request then carries what
// was found). Without one, src.
func (l Level) Source(src load.Source) load.Source {
	if l.Batch == 0 {
		return src
	}
	return load.SourceFunc(func(i int) load.Prompt {
		p := src.Prompt(i)
		msgs := slices.Clone(p.Request.Messages)
		n := users(msgs)
		for k := 1; n < l.Batch && k <= l.Batch; k++ {
			next := src.Prompt(i + k)
			if next.Case != "" && next.Case == p.Case {
				continue // the fixture come round again: its own texts would rank with themselves
			}
			for _, m := range next.Request.Messages {
				if n < l.Batch && input(m) {
					msgs = append(msgs, m)
					n++
				}
			}
		}
		p.Request.Messages = msgs
		return p
	})
}

// input says whether m is embedded (stream.EmbeddingInputs: every message
// but the system's).
func input(m openai.ChatCompletionMessage) bool { return m.Role != "system" && m.Role != "developer" }

func users(msgs []openai.ChatCompletionMessage) int {
	n := 0
	for _, m := range msgs {
		if input(m) {
			n++
		}
	}
	return n
}
