package config

import (
	"fmt"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/stream"
)

// TestBatchLevels: batch: [3, 8, 32] makes a level per size crossed with
// the load levels, labelled batch=8/concurrency=1, each request of which
// carries that many inputs, its case's first; a search steps through the
// one size given.
func TestBatchLevels(t *testing.T) {
	cfg, err := LoadFile(writeConfig(t, oneEndpoint+"scenarios:\n  embeddings: {batch: [3, 8, 32], concurrency: [1, 4]}\n"))
	require.NoError(t, err)
	sc := cfg.Scenario("embeddings", "a")
	var labels []string
	for _, l := range sc.Levels() {
		labels = append(labels, string(l.Label()))
	}
	assert.Equal(t, []string{"batch=3/concurrency=1", "batch=3/concurrency=4", "batch=8/concurrency=1", "batch=8/concurrency=4", "batch=32/concurrency=1", "batch=32/concurrency=4"}, labels)

	cases := load.SourceFunc(func(i int) load.Prompt {
		return load.Prompt{Case: fmt.Sprint("c", i), Request: stream.Request{Messages: []openai.ChatCompletionMessage{
			{Role: "system", Content: "not embedded"},
			{Role: "user", Content: fmt.Sprint("anchor ", i)}, {Role: "user", Content: fmt.Sprint("related ", i)}, {Role: "user", Content: fmt.Sprint("unrelated ", i)}}}}
	})
	for _, l := range sc.Levels() {
		p := l.Source(cases).Prompt(5)
		in := stream.EmbeddingInputs(p.Request)
		require.Len(t, in, l.Batch, "%s", l.Label())
		assert.Equal(t, []string{"anchor 5", "related 5", "unrelated 5"}, in[:3], "the case's own inputs first, whole")
		assert.Equal(t, "c5", p.Case)
		if l.Batch > 3 {
			assert.Equal(t, "anchor 6", in[3], "then the next case's")
		}
	}
	two := load.SourceFunc(func(i int) load.Prompt { return cases.Prompt(i % 2) }) // a fixture of two cases, round and round
	for _, in := range stream.EmbeddingInputs(Level{Batch: 32}.Source(two).Prompt(0).Request)[3:] {
		assert.NotContains(t, in, " 0", "the case's own texts come once")
	}
	none := Level{}.Source(cases).Prompt(0)
	assert.Len(t, stream.EmbeddingInputs(none.Request), 3, "no batch: a case a request")
	empty := Level{Batch: 8}.Source(load.SourceFunc(func(int) load.Prompt { return load.Prompt{} })).Prompt(0)
	assert.Empty(t, empty.Request.Messages, "prompts without texts do not hold it")

	cfg, err = LoadFile(writeConfig(t, oneEndpoint+"scenarios:\n  embeddings: {batch: 16, capacity: {by: concurrency}}\n"))
	require.NoError(t, err)
	assert.Equal(t, 16, cfg.Scenario("embeddings", "a").RateLevel(4, "capacity").Batch)
}

// TestBatchErrors: a batch size that is no size, twice, with synthetic
// prompts or several under a search is an error at file:line: key naming
// what is allowed.
func TestBatchErrors(t *testing.T) {
	for name, tc := range map[string]struct{ scenario, want string }{
		"below a case":      {"{batch: [1, 8]}", `:4: scenarios.embeddings.batch: "1" is not a batch size: want a whole number from 3 (a case's anchor, related and unrelated texts) to 2048 (OpenAI's most inputs a request)`},
		"above the API's":   {"{batch: 4096}", `:4: scenarios.embeddings.batch: "4096" is not a batch size: want a whole number from 3`},
		"not a number":      {"{batch: [eight]}", `:4: scenarios.embeddings.batch: "eight" is not a batch size`},
		"an empty list":     {"{batch: []}", `:4: scenarios.embeddings.batch: want a value or a list of values, e.g. [3, 8, 32]`},
		"twice":             {"{batch: [8, 8]}", `:4: scenarios.embeddings.batch: 8 is listed twice: each batch size is a level`},
		"synthetic prompts": {"{batch: 8, prompt_tokens: 128}", `:4: scenarios.embeddings.batch: a batch carries the fixture's texts, and prompt_tokens sends synthetic prompts instead: drop one of them`},
		"several searched":  {"{batch: [8, 32], capacity: {by: rate}}", `:4: scenarios.embeddings.batch: a capacity search or sweep steps through one batch size: give one (batch: 8)`},
		"on an endpoint":    {"\n    endpoints:\n      a: {batch: 2}", `:6: scenarios.embeddings.endpoints.a.batch: "2" is not a batch size`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadFile(writeConfig(t, oneEndpoint+"scenarios:\n  embeddings: "+tc.scenario+"\n"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestBatchOnlyWhereItEmbeds: batch: on a scenario that does not embed —
// at its top or an endpoint's — is refused at file:line: key, naming
// what is allowed; on one that does, and on one another check names
// (a scenario no suite defines), it is not this check's.
func TestBatchOnlyWhereItEmbeds(t *testing.T) {
	path := writeConfig(t, oneEndpoint+"scenarios:\n  embeddings: {batch: [8, 32]}\n  chat:\n    batch: 8\n    endpoints:\n      a: {batch: [3]}\n  tools: {concurrency: 1}\n")
	cfg, err := LoadFile(path)
	require.NoError(t, err, "batch sizes parse wherever they are written")
	embeds := func(name string) bool { return name == "embeddings" }
	err = cfg.CheckBatch(embeds)
	require.Error(t, err)
	const allowed = "chat sends generation requests, a prompt each: batch: (inputs per request) is allowed on embeddings scenarios only (the shipped embeddings, or one defined with Embeddings: true); remove it"
	assert.Equal(t, "2 errors in the configuration:\n  "+path+":6: scenarios.chat.batch: "+allowed+"\n  "+path+":8: scenarios.chat.endpoints.a.batch: "+allowed, err.Error())
	assert.NoError(t, cfg.CheckBatch(func(string) bool { return true }))
}
