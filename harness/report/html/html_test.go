package html

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmsla/llmsla/harness/internal/ci"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/internal/modroot"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// testBoard is a board with every plot's data: two endpoints, a chat
// scenario at two concurrency levels, a prompt-length sweep, a few
// failures of two kinds, and prices.
func testBoard(t testing.TB) *report.Board {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var samples []sample.Sample
	add := func(ep, sc string, level sample.Level, ttft time.Duration, wrong, fail float64) {
		at := t0
		for i := range 20 {
			d := time.Duration(float64(ttft) * (1 + 0.15*rng.NormFloat64()))
			s := sample.Sample{Scenario: sc, Endpoint: ep, Model: "model-" + ep, Level: level, Run: ep + sc + string(level),
				Start: at, TTFT: d, TTFA: d, Total: d + 80*time.Millisecond, PromptTokens: 120, OutputTokens: 40,
				TokenSource: sample.TokensUsage, Finish: "stop",
				Quality: &sample.Quality{MatchChecked: true, Matched: rng.Float64() >= wrong}}
			if c := level.Concurrency(); c > 1 {
				s.Start = at.Add(-time.Duration(i%c) * s.Total / time.Duration(c))
			}
			switch x := rng.Float64(); {
			case x < fail/2:
				s.Fail(&sample.RequestError{Kind: sample.KindRateLimited, Status: 429})
			case x < fail:
				s.Fail(&sample.RequestError{Kind: sample.KindTruncated})
			}
			at = at.Add(s.Total)
			samples = append(samples, s)
		}
	}
	for _, ep := range []struct {
		name       string
		ttft       time.Duration
		wrong, err float64
	}{{"hosted", 80 * time.Millisecond, 0.2, 0.1}, {"local", 250 * time.Millisecond, 0, 0}} {
		for _, c := range []int{1, 4} {
			add(ep.name, "chat", sample.NewLevel("concurrency", c), ep.ttft, ep.wrong, ep.err)
		}
		for _, n := range []int{256, 1024, 4096} {
			add(ep.name, "long-input", sample.NewLevel("prompt_tokens", n), ep.ttft*time.Duration(n)/512, ep.wrong, 0)
		}
	}
	sla := objective.MustParse(map[string]float64{"ttft_p95_ms": 3000, "error_rate_max": 0.01})
	return report.NewBoard(samples, report.Options{
		Objectives: func(string, string) objective.Objectives { return sla },
		Prices: map[string]report.Price{"hosted": {InputPerMTok: 0.15, OutputPerMTok: 0.6, Currency: "USD"},
			"local": {Hourly: true, PerHour: 1.2, Currency: "USD"}},
		Timelines: testTimelines(t0)})
}

// TestHTMLIsSelfContained: nothing in the page is fetched from elsewhere.
func TestHTMLIsSelfContained(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, testBoard(t)))
	page := buf.String()
	for _, re := range []string{`<script`, `<link`, `(src|href)\s*=\s*["']?(https?:)?//`, `@import`, `url\(\s*["']?(https?:)?//`} {
		assert.NotRegexp(t, regexp.MustCompile(`(?i)`+re), page)
	}
	assert.Equal(t, 9, strings.Count(page, `<figure class="plot`), "nine plots")
	assert.Equal(t, 9, strings.Count(page, "<svg"), "each drawn")
}

// chromium finds a Chromium to drive, skipping the test locally without
// one and failing it under CI=true, where .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if ci.On() {
		t.Fatal("no chromium on PATH under CI=true: .ci/run installs it (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install -y chromium); the HTML report is not checked in a browser")
	return ""
}

// drawn is what the page says of one plot once a browser has laid it out.
type drawn struct {
	ID              string
	Width, Height   float64
	Paths, Texts    int
	Missing         string
	HasSVG, Visible bool
}

// TestHTMLInBrowser opens the report in headless Chromium and checks that
// the page logs no error, fetches nothing, and that every plot is drawn:
// an SVG laid out at a real size with lines and text in it. It keeps a
// screenshot at results/report-test.png for a person to look at.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, testBoard(t)))
	good := filepath.Join(dir, "report.html")
	require.NoError(t, os.WriteFile(good, buf.Bytes(), 0o644))
	// A page with a console error, to prove the listener hears one.
	bad := filepath.Join(dir, "bad.html")
	require.NoError(t, os.WriteFile(bad, []byte(`<!DOCTYPE html><title>bad</title><script>console.error("planted")</script>`), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The flags this machine's closed network needs, or Chromium hangs on
	// its background connections; a fresh profile each run.
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 1000))
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(ctx)
	defer cancelTab()

	var mu sync.Mutex
	var problems []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == "error" || ev.Type == "assert" {
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, args(ev.Args)))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				problems = append(problems, "log: "+ev.Entry.Text)
			}
		}
	}))
	heard := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), problems...)
	}
	// settle lets the last events of a load arrive.
	settle := func() {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => setTimeout(() => r(true), 200))`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
	}

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+bad)))
	settle()
	require.NotEmpty(t, heard(), "the planted console.error was not heard: the check below would pass on anything")
	mu.Lock()
	problems = nil
	mu.Unlock()

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+good)))
	settle()
	assert.Empty(t, heard(), "console errors on the report page")

	fetched, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType('resource').map(e => e.name)`))
	require.NoError(t, err)
	assert.Empty(t, fetched, "the page fetched resources: it must be self-contained")

	plots, err := chromedp.Run(ctx, chromedp.Evaluate[[]drawn](`[...document.querySelectorAll('figure.plot')].map(f => {
		const svg = f.querySelector('svg'), r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
		return {ID: f.id, HasSVG: !!svg, Width: r.width, Height: r.height,
			Paths: svg ? svg.querySelectorAll('path').length : 0, Texts: svg ? svg.querySelectorAll('text').length : 0,
			Visible: svg ? getComputedStyle(svg).visibility === 'visible' && getComputedStyle(svg).display !== 'none' : false,
			Missing: (f.querySelector('p.missing') || {}).textContent || ''};
	})`))
	require.NoError(t, err)
	var ids []string
	for _, p := range plots {
		ids = append(ids, p.ID)
		assert.True(t, p.HasSVG, "%s: not drawn (%s)", p.ID, p.Missing)
		assert.True(t, p.Visible, "%s: hidden", p.ID)
		assert.Greater(t, p.Width, 300.0, "%s: laid out %v px wide", p.ID, p.Width)
		assert.Greater(t, p.Height, 150.0, "%s: laid out %v px high", p.ID, p.Height)
		assert.Greater(t, p.Paths, 10, "%s: %d paths — axes and data need more", p.ID, p.Paths)
		assert.Greater(t, p.Texts, 3, "%s: %d texts — title, axis labels and ticks need more", p.ID, p.Texts)
	}
	assert.Equal(t, []string{"ttft-cdf", "total-cdf", "pareto", "ttft-input", "throughput-load", "errors", "server-queue", "server-kv", "server-memory"}, ids)
	for _, p := range checkLegends(t, ctx) {
		assert.True(t, p.Legend, "%s: no legend group", p.ID)
	}
	checkWideLegends(t, ctx, dir)

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	if root, err := modroot.FromWD(); err == nil {
		out := filepath.Join(root, "results", "report-test.png")
		if os.MkdirAll(filepath.Dir(out), 0o755) == nil && os.WriteFile(out, png, 0o644) == nil {
			t.Logf("screenshot: %s", out)
		}
	}
}

// legendLayout is what the page says of one plot's legend once laid out.
type legendLayout struct {
	ID                       string
	Legend, InSVG, BelowData bool
	LegendTexts, Data        int
	Overlaps                 []string
}

// checkLegends asserts, from the geometry of the laid-out page, that each
// plot's legend box (<g class="legend">) covers none of its data (<g
// class="data">): no point along a line or an outline falls inside the
// box, and no filled shape or label meets it. It returns what it found of
// each plot, for the caller to say which must have a legend.
func checkLegends(t *testing.T, ctx context.Context) []legendLayout {
	t.Helper()
	plots, err := chromedp.Run(ctx, chromedp.Evaluate[[]legendLayout](`[...document.querySelectorAll('figure.plot')].map(f => {
		const svg = f.querySelector('svg'), leg = svg && svg.querySelector('g.legend');
		const out = {ID: f.id, Legend: !!leg, InSVG: false, BelowData: false, LegendTexts: 0, Data: 0, Overlaps: []};
		if (!leg) return out;
		const L = leg.getBoundingClientRect(), S = svg.getBoundingClientRect();
		out.LegendTexts = leg.querySelectorAll('text').length;
		out.InSVG = L.left >= S.left - 0.5 && L.right <= S.right + 0.5 && L.top >= S.top - 0.5 && L.bottom <= S.bottom + 0.5;
		const inside = (x, y) => x >= L.left && x <= L.right && y >= L.top && y <= L.bottom;
		const meets = r => r.left < L.right && L.left < r.right && r.top < L.bottom && L.top < r.bottom;
		let bottom = -Infinity;
		for (const el of svg.querySelectorAll('g.data path, g.data text')) {
			out.Data++;
			bottom = Math.max(bottom, el.getBoundingClientRect().bottom);
			const what = el.tagName + (el.textContent ? ' "' + el.textContent + '"' : '');
			if (el.tagName === 'text' || getComputedStyle(el).fill !== 'none') {
				if (meets(el.getBoundingClientRect())) out.Overlaps.push(what + ' meets the legend');
				continue;
			}
			const n = el.getTotalLength(), m = el.getScreenCTM();
			for (let s = 0; s <= n; s += 0.5) {
				const p = el.getPointAtLength(s).matrixTransform(m);
				if (inside(p.x, p.y)) { out.Overlaps.push(what + ' passes (' + Math.round(p.x) + ', ' + Math.round(p.y) + ') under the legend'); break; }
			}
		}
		out.BelowData = L.top >= bottom - 0.5;
		return out;
	})`))
	require.NoError(t, err)
	for _, p := range plots {
		if !p.Legend {
			continue
		}
		assert.Positive(t, p.LegendTexts, "%s: an empty legend", p.ID)
		assert.True(t, p.InSVG, "%s: the legend reaches out of its plot", p.ID)
		assert.Positive(t, p.Data, "%s: no data group: the check would pass on anything", p.ID)
		assert.Empty(t, p.Overlaps, "%s: the legend covers data", p.ID)
	}
	return plots
}

func args(as []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range as {
		if a.Description != "" {
			parts = append(parts, a.Description)
		} else {
			parts = append(parts, string(a.Value))
		}
	}
	return strings.Join(parts, " ")
}

// TestLevelPanelsDoNotPoolLoads: a prompt-length sweep run at two
// concurrency levels is drawn a line per endpoint and concurrency, from
// the board's verdicts, not one line pooling both loads.
func TestLevelPanelsDoNotPoolLoads(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var samples []sample.Sample
	for _, c := range []int{1, 4} {
		for _, n := range []int{256, 1024} {
			level := sample.NewLevel("concurrency", c).With("prompt_tokens", n)
			for i := range 5 {
				d := time.Duration(c*n) * time.Microsecond
				samples = append(samples, sample.Sample{Scenario: "long-input", Endpoint: "hosted", Level: level, Run: string(level), Seq: i,
					Start: t0.Add(time.Duration(i) * time.Second), TTFT: d, TTFA: d, Total: d, OutputTokens: 10, Finish: "stop"})
			}
		}
	}
	b := report.NewBoard(samples, report.Options{})
	fig, err := ttftByInput(b)
	require.NoError(t, err)
	require.Empty(t, fig.Missing)
	svg := string(fig.SVG)
	assert.Contains(t, svg, ">hosted concurrency=1<")
	assert.Contains(t, svg, ">hosted concurrency=4<")
}
