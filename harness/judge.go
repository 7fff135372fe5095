package harness

import (
	"testing"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/session"
)

// logJudgeNote says, once per scenario run, why a scenario that names a
// rubric is not judged (no judge endpoint configured, quality off).
func logJudgeNote(t testing.TB, s *session.Session, sc Scenario) {
	t.Helper()
	if note := s.Concerns().Judge.Note(sc.Name); note != "" {
		t.Log(escape.Text(note))
	}
}

// logJudgeReport logs what the session's judge has done so far: answers
// judged, from the cache, and its own requests' account (latency, failures,
// tokens), which no measured figure holds.
func logJudgeReport(t testing.TB, s *session.Session) {
	t.Helper()
	r, ok := s.Concerns().Judge.Report()
	if !ok || r.Judged == 0 {
		return
	}
	t.Log(escape.Text("judge: " + r.String()))
	if r.Note != "" {
		t.Log(escape.Text(r.Note))
	}
	if r.CacheErr != nil {
		t.Logf("judge: warning: %s: the judgments were made, but the next run asks them again", escape.Text(r.CacheErr.Error()))
	}
}
