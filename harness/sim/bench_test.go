package sim

import (
	"io"
	"net/http"
	"testing"
)

// BenchmarkStream is one request per iteration with no delays, so it
// measures what the simulator spends per token: what must stay small for
// 200 streams to keep their timing on 2 cores.
func BenchmarkStream(b *testing.B) {
	cfg := Default()
	cfg.TTFT, cfg.TPOT, cfg.OutputTokens = 0, 0, 64
	_, url := Start(b, cfg)
	client := &http.Client{}
	defer client.CloseIdleConnections()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := post(b, client, url, streamBody, "")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cfg.OutputTokens), "ns/token")
}

// BenchmarkStreamTools is BenchmarkStream for a tool-call answer of about
// as many tokens, in a fragment and a whole-call framing: the tool path
// must cost no more per token than text.
func BenchmarkStreamTools(b *testing.B) {
	calls := []ToolCall{{Name: "get_weather", Arguments: `{"city":"` + words("w", 60) + `"}`}}
	tokens := 1 + len(splitTokens(calls[0].Arguments))
	for _, framing := range []string{ToolsOpenAI, ToolsWhole} {
		b.Run("framing="+framing, func(b *testing.B) {
			cfg := Default()
			cfg.TTFT, cfg.TPOT, cfg.ToolFraming = 0, 0, framing
			var a Answers
			a.AddTools(weatherQ, [][]ToolCall{calls}, "")
			a.Hook(&cfg)
			_, url := Start(b, cfg)
			body := toolsBody(true, "")
			client := &http.Client{}
			defer client.CloseIdleConnections()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := post(b, client, url, body, "")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tokens), "ns/token")
		})
	}
}
