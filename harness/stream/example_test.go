package stream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stream"
)

// A Client sends one streaming chat completion and times it into a
// Sample; a failure is a Sample too, its kind matched with errors.Is.
func ExampleClient_Do() {
	cfg := sim.Default()
	cfg.OutputTokens = 5
	srv := httptest.NewServer(sim.New(cfg))
	defer srv.Close()

	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: srv.URL + "/v1", Model: "sim"})
	defer c.CloseIdle()
	req := stream.Request{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Say hello."}}}
	s := c.Do(context.Background(), req)
	fmt.Println(s.OK(), s.Finish, s.OutputTokens, s.TokenSource, s.TTFT > 0 && s.Total >= s.TTFT)

	cfg.Faults = map[string]float64{sim.FaultRateLimited: 1}
	limited := httptest.NewServer(sim.New(cfg))
	defer limited.Close()
	s = stream.NewClient(stream.Endpoint{Name: "limited", BaseURL: limited.URL + "/v1", Model: "sim"}).Do(context.Background(), req)
	fmt.Println(s.OK(), s.ErrKind, s.RetryAfter, errors.Is(s.Error(), sample.ErrRateLimited))
	// Output:
	// true stop 5 usage true
	// false rate_limited 2 true
}
