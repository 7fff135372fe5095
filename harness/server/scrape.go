package server

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Metrics reads a Prometheus /metrics in the text format (vLLM, SGLang,
// TGI, llama.cpp --metrics), on a connection of its own: its transport
// holds one connection apart from the measured requests' pool, so that a
// scrape never waits behind them nor they behind it.
type Metrics struct {
	url    string
	header http.Header
	client *http.Client
}

// NewMetrics returns the source of the /metrics at u, sending header with
// each scrape (the endpoint's own, when u is on its host: nobody else's
// /metrics gets its key).
func NewMetrics(u string, header http.Header) *Metrics {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConns: 1, MaxIdleConnsPerHost: 1,
		IdleConnTimeout: time.Minute, ResponseHeaderTimeout: 10 * time.Second}
	return &Metrics{url: u, header: header, client: &http.Client{Transport: tr}}
}

// Name is the source's name in readings.
func (m *Metrics) Name() string { return SourceMetrics }

// URL is where it scrapes.
func (m *Metrics) URL() string { return m.url }

// Close closes its idle connection.
func (m *Metrics) Close() { m.client.CloseIdleConnections() }

// Read scrapes once: a 200 in the Prometheus text format (asked for with
// Accept, as Prometheus does when it cannot read protobuf), read bounded
// and filtered (readExposition). Anything else fails the reading.
func (m *Metrics) Read(ctx context.Context, rd *Reading) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.url, nil)
	if err != nil {
		return err
	}
	for k, v := range m.header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	resp, err := m.client.Do(req)
	if err != nil {
		return scrapeError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !textFormat(ct) {
		return fmt.Errorf("Content-Type %q: not the Prometheus text format", ct)
	}
	if err := readExposition(resp.Body, rd); err != nil {
		return scrapeError(err)
	}
	return nil
}

// textFormat reports whether a Content-Type is the Prometheus text format
// (text/plain, any version; none at all, as some exporters send).
func textFormat(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/plain"
}

// scrapeError names a timeout as such rather than by the context's words.
func scrapeError(err error) error {
	if strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
		return fmt.Errorf("no answer in time (the reading's timeout)")
	}
	if ue, ok := err.(*url.Error); ok {
		return ue.Err // the URL is the source's, said once in the report
	}
	return err
}

// Probe says whether u answers as a Prometheus /metrics with at least one
// family, within timeout: how an endpoint whose configuration names no
// server_metrics gets its base URL's /metrics scraped.
func Probe(ctx context.Context, m *Metrics, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd Reading
	if err := m.Read(ctx, &rd); err != nil {
		return err
	}
	if rd.Families == 0 {
		return fmt.Errorf("no metric family in its answer")
	}
	return nil
}

// MetricsURL is the /metrics beside an OpenAI-compatible base URL: at the
// server's root, where vLLM, SGLang and TGI serve it (a base URL's /v1
// left out), its query (which may hold a key) dropped.
func MetricsURL(baseURL string) (string, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", err
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1") + "/metrics"
	return u.String(), nil
}
