package junit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/report/junit"
	"github.com/llmsla/llmsla/harness/report/junit/junittest"
)

// TestHostileJUnit: beyond what XML forbids, what a CI page or a terminal
// would act on in a name or message — an 8-bit CSI, DEL, a bidi override
// that shows "failed" as "ok" — is written escaped; markup that would
// forge a case reads back as text; a message of 4 MiB and a name of a
// thousand lines stay one attribute; the document validates.
func TestHostileJUnit(t *testing.T) {
	forged := `x"/><testcase name="forged" classname="c"/><testcase name="`
	doc := junit.Suites{Name: "llmsla", Suites: []junit.Suite{{Name: "verdicts", Cases: []junit.Case{
		{Classname: "chat/" + forged, Name: "ok\u202edeliaf", Failures: []junit.Problem{{Message: "a\u009b2Jb\x7f", Type: "sla", Detail: "line\r\nnext <!-- -->"}}},
		{Classname: "chat/long", Name: strings.Repeat("l\n", 1000), Failures: []junit.Problem{{Message: strings.Repeat("m", 4<<20), Type: "sla"}}},
	}}}}
	var buf bytes.Buffer
	require.NoError(t, junit.Write(&buf, doc, nil))
	out := buf.String()
	for _, raw := range []string{"\u009b", "\u202e", "\x7f"} {
		assert.NotContains(t, out, raw, "written raw")
	}
	d := junittest.Validate(t, buf.Bytes())
	s := d.Suites[0]
	require.Len(t, s.Cases, 2, "no case forged")
	assert.Equal(t, "chat/"+forged, s.Cases[0].Classname)
	assert.Equal(t, `ok\u202edeliaf`, s.Cases[0].Name)
	assert.Equal(t, `a\u009b2Jb\x7f`, s.Cases[0].Failures[0].Message)
	assert.Equal(t, "line\r\nnext <!-- -->", s.Cases[0].Failures[0].Detail, "tab, newline and CR are XML's own")
	assert.Len(t, s.Cases[1].Failures[0].Message, 4<<20)
	assert.Equal(t, 2, s.Failures)
}
