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
