package verdict

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/judge"
	"github.com/llmsla/llmsla/harness/report"
	"github.com/llmsla/llmsla/harness/sample"
)

// ErrUnread is a recording whose samples could not be read: the verdict
// said why already.
var ErrUnread = errors.New("the samples could not be read")

// JudgeAccount is what a bench's judge did, from its recording: the
// answers it judged (the samples' quality), the requests it sent (the
// judge's own file beside them, absent when it sent none), and a line per
// judge of their latency, failures, tokens and, priced, cost.
func JudgeAccount(cfg *config.Config, samplesPath, judgePath string) (judged, sent int, lines []string, err error) {
	answers, err := sample.Read(samplesPath)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%w: %w", ErrUnread, err)
	}
	for _, s := range answers {
		if s.Measured() && s.Quality != nil && s.Quality.JudgeChecked {
			judged++
		}
	}
	requests, err := sample.Read(judgePath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil, fmt.Errorf("its requests' record %s: %w", judgePath, err)
	}
	for _, a := range judge.Summarize(requests) {
		line := a.String()
		if p, ok := cfg.Prices[a.Judge]; ok {
			if c := report.CostOf(requests, nil, &p); !math.IsNaN(c.PerK) {
				line += fmt.Sprintf("; cost %s %s", report.Money(c.PerK*float64(c.Priced)/1000), c.Currency)
			}
		}
		lines = append(lines, line)
	}
	return judged, len(requests), lines, nil
}
