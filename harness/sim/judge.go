package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"

	openai "github.com/sashabaranov/go-openai"

	"github.com/llmsla/llmsla/harness/judge/rubric"
)

// The simulator as a judge (Config.Judge): a request whose prompt is a
// judge's (package judge's Messages) is answered with a verdict of known
// behaviour, so that judged figures, the cache, calibration and the
// fail-closed reading of verdicts have a truth to be tested against.
//
// The verdict scores the answer by the reference's key words: the words of
// four letters or more, stop words left out, of the reference the prompt
// shows (or, with none, of the answer the simulator was told for the
// question), against the answer's. Their F1 (the harmonic mean of the
// share of the reference's words the answer has and the share of the
// answer's words the reference has: a copy of the source is long, and
// scores low) makes the score: 1 + ⌊4·F1⌋ on a 1-5 scale (5 for the
// reference itself, 4 from an F1 of 0.75), a pass from an F1 of 0.75 on
// pass_fail. JudgeLengthBias adds bias × (answer words / reference words
// − 1) to 4·F1 on either scale: a judge that favours long answers. With
// probability JudgeNoise, decided by a hash of Seed and the prompt (the
// same judgment gets the same verdict, in any order), the verdict is
// flipped across the threshold; with probability JudgeProse the judge
// answers prose instead of JSON. Truth.Judge records what it decided.

// JudgeTruth is what the simulator's judge decided for one request.
type JudgeTruth struct {
	F1      float64 // the key-word F1 of the answer against the reference
	Score   float64
	Pass    bool
	Flipped bool // the noise flipped the verdict
	Prose   bool // answered prose, not a verdict
}

// Streams of the judge's hashed draws (apart from the request-index ones).
const (
	judgeStreamNoise byte = iota + 1
	judgeStreamProse
)

func (c Config) validateJudge() error {
	switch {
	case !isProb(c.JudgeNoise) || !isProb(c.JudgeProse):
		return fmt.Errorf("judge_noise=%v, judge_prose=%v: rates must be in [0,1]", c.JudgeNoise, c.JudgeProse)
	case math.IsNaN(c.JudgeLengthBias) || math.Abs(c.JudgeLengthBias) > 10:
		return fmt.Errorf("judge_length_bias=%v: want a number from -10 to 10", c.JudgeLengthBias)
	case !c.Judge && (c.JudgeNoise != 0 || c.JudgeProse != 0 || c.JudgeLengthBias != 0):
		return fmt.Errorf("judge_noise, judge_prose and judge_length_bias set with judge=false: turn the judge on")
	}
	return nil
}

// JudgeDigest names the simulator's judge behaviour, for a judgment's cache
// key: another noise, bias or seed is another judge.
func (c Config) JudgeDigest() string {
	return fmt.Sprintf("sim-judge:%s,seed=%d", strings.Join(c.judgeSpec(), ","), c.Seed)
}

// judging reports whether the call is a judgment the simulator answers.
func (c *call) judging() bool {
	if !c.cfg.Judge {
		return false
	}
	_, ok := rubric.ReadPrompt(c.req.Messages)
	return ok
}

// verdict is the judge's answer to the call, recorded in its truth.
func (c *call) verdict() string {
	p, _ := rubric.ReadPrompt(c.req.Messages)
	cfg := c.cfg
	ref := p.Reference
	if !p.HasReference && cfg.Answer != nil {
		ref = cfg.Answer(&openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: p.Question}}})
	}
	f1, aw, rw := keywordF1(p.Answer, ref)
	r := &rubric.Rubric{Scale: p.Scale, Threshold: p.Threshold}
	bias := 0.0
	if rw > 0 {
		bias = cfg.JudgeLengthBias * (float64(aw)/float64(rw) - 1)
	}
	var score float64
	if p.Scale == rubric.Five {
		score = min(max(1+math.Floor(4*f1+bias), 1), 5)
	} else if f1+bias/4 >= 0.75 {
		score = 1
	}
	t := &JudgeTruth{F1: f1}
	prompt := c.req.Messages[1].Content
	if judgeDraw(cfg.Seed, judgeStreamNoise, prompt) < cfg.JudgeNoise {
		score, t.Flipped = flip(r, score), true
	}
	t.Score, t.Pass = score, r.Passes(score)
	c.tr.Judge, c.tr.Wrong = t, false
	if judgeDraw(cfg.Seed, judgeStreamProse, prompt) < cfg.JudgeProse {
		t.Prose = true
		return "I have read the answer carefully and I think it is mostly fine, covering the main points."
	}
	b, _ := json.Marshal(rubric.Verdict{Score: score, Pass: t.Pass,
		Reason: fmt.Sprintf("key-word F1 %.2f against the reference (%d words, the answer %d)", f1, rw, aw)})
	return string(b)
}

// flip moves a score across the rubric's threshold: a pass to the score
// below it, a fail to the threshold (a threshold of 1 cannot be failed).
func flip(r *rubric.Rubric, score float64) float64 {
	if r.Scale == rubric.PassFail {
		return 1 - score
	}
	if r.Passes(score) {
		return max(math.Ceil(r.Threshold)-1, 1)
	}
	return math.Ceil(r.Threshold)
}

// judgeDraw is a uniform draw in [0, 1) from the seed, the stream and the
// text: the same judgment draws the same, whatever came before it.
func judgeDraw(seed int64, stream byte, text string) float64 {
	h := sha256.New()
	var b [9]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(seed))
	b[8] = stream
	h.Write(b[:])
	h.Write([]byte(text))
	return float64(binary.LittleEndian.Uint64(h.Sum(nil))>>11) / (1 << 53)
}

// keywordF1 is the F1 of answer's key words against ref's, with both texts'
// word counts.
func keywordF1(answer, ref string) (f1 float64, answerWords, refWords int) {
	a, aw := keywords(answer)
	r, rw := keywords(ref)
	if len(a) == 0 || len(r) == 0 {
		return 0, aw, rw
	}
	both := 0
	for w := range a {
		if r[w] {
			both++
		}
	}
	if both == 0 {
		return 0, aw, rw
	}
	prec, rec := float64(both)/float64(len(a)), float64(both)/float64(len(r))
	return 2 * prec * rec / (prec + rec), aw, rw
}

// stopWords are left out of key words: they say nothing of content.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about after also been before being between both could does each from have into
	more most much only other over some such than that their them then there these they this those through under very
	were what when where which while will with would your`) {
		stopWords[w] = true
	}
}

// keywords are the distinct words of s of four letters or more, lower
// case, stop words left out; n is every word.
func keywords(s string) (set map[string]bool, n int) {
	set = map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		n++
		if len([]rune(w)) >= 4 && !stopWords[w] {
			set[w] = true
		}
	}
	return set, n
}
