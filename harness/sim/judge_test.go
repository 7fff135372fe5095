package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/judge/rubric"
)

var (
	judgeFive = &rubric.Rubric{Name: "s", Criteria: []string{"Faithful."}, Scale: rubric.Five, Threshold: 4, Reference: true}
	judgePF   = &rubric.Rubric{Name: "c", Criteria: []string{"Answers."}, Scale: rubric.PassFail, Reference: true}
)

const judgeRef = "The council approved turning three downtown parking garages into apartments, shops and a library."

// ask sends one judgment to the simulator at url, not streamed, and
// returns the answer text.
func ask(t *testing.T, url string, r *rubric.Rubric, it rubric.Item) string {
	t.Helper()
	body, _ := json.Marshal(openai.ChatCompletionRequest{Model: "judge", Messages: rubric.Messages(r, it)})
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out openai.ChatCompletionResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) == 0 {
		t.Fatalf("answer: %v (%d choices)", err, len(out.Choices))
	}
	return out.Choices[0].Message.Content
}

func verdict(t *testing.T, content string) rubric.Verdict {
	t.Helper()
	var v rubric.Verdict
	if err := json.Unmarshal([]byte(content), &v); err != nil {
		t.Fatalf("not a verdict: %q: %v", content, err)
	}
	return v
}

// TestJudgeVerdicts: the simulator's judge scores by the reference's key
// words — the reference itself 5, a copy of the source long and low,
// unrelated words 1 — on either scale, and a request that is no judgment
// gets the usual answer.
func TestJudgeVerdicts(t *testing.T) {
	srv, url := Start(t, Config{Judge: true, Seed: 1})
	long := judgeRef + " The plan, debated for almost two years, adds roughly 450 apartments, forty percent rented below market rates" +
		" to households earning less than the regional median income. Supporters argued garages stand half empty on weekdays" +
		" because residents commute by bus, bicycle or light rail; opponents, mostly business owners, warned shoppers would drive to suburban malls."
	cases := map[string]struct {
		r      *rubric.Rubric
		answer string
		score  float64
		pass   bool
	}{
		"the reference":        {judgeFive, judgeRef, 5, true},
		"a close paraphrase":   {judgeFive, "Council approved turning three downtown parking garages into apartments and shops.", 4, true},
		"unrelated words":      {judgeFive, "Bananas are yellow and rich in potassium.", 1, false},
		"long with extra text": {judgeFive, long, 2, false},
		"pass_fail reference":  {judgePF, judgeRef, 1, true},
		"pass_fail unrelated":  {judgePF, "No idea.", 0, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := verdict(t, ask(t, url, tc.r, rubric.Item{Question: "Summarise.", Reference: judgeRef, Answer: tc.answer}))
			if v.Score != tc.score || v.Pass != tc.pass || v.Pass != tc.r.Passes(v.Score) {
				t.Errorf("verdict %+v, want score %v pass %v", v, tc.score, tc.pass)
			}
		})
	}
	for _, tr := range srv.Truth() {
		if tr.Judge == nil || tr.Judge.Flipped || tr.Judge.Prose || tr.Wrong {
			t.Errorf("request %d: truth %+v", tr.Index, tr.Judge)
		}
	}
	body, _ := json.Marshal(openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Hello?"}}})
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if tr := srv.Truth(); tr[len(tr)-1].Judge != nil {
		t.Error("a request that is no judgment was judged")
	}
}

// TestJudgeNoise: with judge_noise p the share of verdicts flipped over
// many judgments is p (within binomial noise), each recorded in the
// truth, and the same judgment asked twice gets the same verdict.
func TestJudgeNoise(t *testing.T) {
	const n, p = 400, 0.2
	srv, url := Start(t, Config{Judge: true, JudgeNoise: p, Seed: 3})
	first := map[int]string{}
	for i := range n {
		first[i] = ask(t, url, judgeFive, rubric.Item{Question: fmt.Sprintf("Summarise text %d.", i), Reference: judgeRef, Answer: judgeRef})
	}
	flips := 0
	for _, tr := range srv.Truth() {
		if tr.Judge.Flipped {
			flips++
			if tr.Judge.Pass {
				t.Errorf("request %d: the reference flipped to a pass", tr.Index)
			}
		}
	}
	// Binomial(400, 0.2): sd 8; 4 sd either way.
	if flips < n*p-32 || flips > n*p+32 {
		t.Errorf("%d of %d verdicts flipped, want about %v", flips, n, n*p)
	}
	for i := range 20 {
		if again := ask(t, url, judgeFive, rubric.Item{Question: fmt.Sprintf("Summarise text %d.", i), Reference: judgeRef, Answer: judgeRef}); again != first[i] {
			t.Errorf("judgment %d: %q, then %q", i, first[i], again)
		}
	}
}

// TestJudgeProseAndBias: judge_prose answers prose, recorded; a length
// bias scores a long answer higher than the same judge without it.
func TestJudgeProseAndBias(t *testing.T) {
	_, prose := Start(t, Config{Judge: true, JudgeProse: 1, Seed: 1})
	if got := ask(t, prose, judgeFive, rubric.Item{Question: "q", Reference: judgeRef, Answer: judgeRef}); json.Valid([]byte(got)) {
		t.Errorf("judge_prose=1 answered JSON: %q", got)
	}
	long := rubric.Item{Question: "q", Reference: judgeRef, Answer: judgeRef + " " + judgeRef + " Moreover the council said many more things about garages."}
	_, plain := Start(t, Config{Judge: true, Seed: 1})
	_, biased := Start(t, Config{Judge: true, JudgeLengthBias: 3, Seed: 1})
	a, b := verdict(t, ask(t, plain, judgeFive, long)), verdict(t, ask(t, biased, judgeFive, long))
	if b.Score <= a.Score {
		t.Errorf("a long answer scored %v with a length bias, %v without: want higher", b.Score, a.Score)
	}
}

// TestJudgeSpec: the judge's keys read and write back, and bad values are
// errors naming the key.
func TestJudgeSpec(t *testing.T) {
	c, err := ParseSpec("judge_noise=0.1,judge_length_bias=0.5,judge_prose=0.2")
	if err != nil || !c.Judge {
		t.Fatalf("%+v, %v: any judge_ key turns the judge on", c, err)
	}
	back, err := ParseSpec(c.String())
	if err != nil || back.String() != c.String() {
		t.Errorf("%q read back as %q (%v)", c.String(), back.String(), err)
	}
	if !strings.Contains(c.JudgeDigest(), "judge_noise=0.1") {
		t.Errorf("digest %q does not name the noise", c.JudgeDigest())
	}
	for _, bad := range []string{"judge_noise=2", "judge_prose=-1", "judge_length_bias=x", "judge=maybe", "judge_noise=0.1,judge=false"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted it", bad)
		}
	}
}
