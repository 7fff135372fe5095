package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The tests read the wire themselves, with no SSE or OpenAI client, so
// that they check the bytes the harness's client will have to cope with.

const streamBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},` +
	`"messages":[{"role":"user","content":"one two three four"}]}`

func post(t testing.TB, client *http.Client, url, body, fault string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if fault != "" {
		req.Header.Set(FaultHeader, fault)
	}
	return client.Do(req)
}

// event is one SSE event as read off the wire, stamped when its blank line
// was read. Its data lines are joined with "\n", as the SSE spec says.
type event struct {
	comment bool
	name    string // from an "event:" line
	data    string
	lines   int // data lines
	at      time.Time
}

// chunk is the part of a chat.completion.chunk the tests look at.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// readSSE reads events until EOF or error, checking that every line ends
// with nl. It returns the events and the error that ended the body.
func readSSE(t testing.TB, body io.Reader, nl string) ([]event, error) {
	t.Helper()
	evs, tail, err := readSSETail(t, body, nl)
	if tail != "" {
		t.Errorf("unterminated line %.60q", tail)
	}
	return evs, err
}

// readSSETail is readSSE for bodies that may end inside a line: it also
// returns the unterminated bytes at the end.
func readSSETail(t testing.TB, body io.Reader, nl string) (evs []event, tail string, end error) {
	t.Helper()
	r := bufio.NewReader(body)
	var cur event
	var has bool
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return evs, line, err // io.EOF: a clean end of the body
		}
		if !strings.HasSuffix(line, nl) || (nl == "\n" && strings.HasSuffix(line, "\r\n")) {
			t.Errorf("line %.60q does not end in %q", line, nl)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if has {
				cur.at = time.Now()
				evs = append(evs, cur)
			}
			cur, has = event{}, false
		case strings.HasPrefix(line, ":"):
			cur.comment, has = true, true
		case strings.HasPrefix(line, "data: "):
			if cur.lines > 0 {
				cur.data += "\n"
			}
			cur.data += line[len("data: "):]
			cur.lines++
			has = true
		case strings.HasPrefix(line, "event: "):
			cur.name, has = line[len("event: "):], true
		default:
			t.Errorf("unexpected SSE line %q", line)
		}
	}
}

func decodeChunk(t testing.TB, data string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("chunk %q: %v", data, err)
	}
	return c
}

// summary is what a stream said, counted the way METRICS.md counts.
type summary struct {
	roleOnly, empty, pings, tokens, reasoning int
	oneLine                                   int // JSON events on a single data line
	content                                   string
	finish                                    string
	usage                                     int // completion_tokens, -1 if none
	done                                      bool
	firstToken, firstAnswer, last             time.Time
}

func summarize(t testing.TB, evs []event) summary {
	t.Helper()
	s := summary{usage: -1}
	for _, ev := range evs {
		switch {
		case ev.comment:
			s.pings++
			continue
		case ev.data == "[DONE]":
			s.done = true
			s.last = ev.at
			continue
		}
		if s.done {
			t.Errorf("event after [DONE]: %q", ev.data)
		}
		c := decodeChunk(t, ev.data)
		s.last = ev.at
		if ev.lines == 1 {
			s.oneLine++
		}
		if c.Usage != nil {
			s.usage = c.Usage.CompletionTokens
			if len(c.Choices) != 0 {
				t.Errorf("usage chunk with choices: %q", ev.data)
			}
		}
		for _, ch := range c.Choices {
			d := ch.Delta
			if ch.FinishReason != nil {
				s.finish = *ch.FinishReason
			}
			switch {
			case d.ReasoningContent != nil && *d.ReasoningContent != "":
				s.tokens++
				s.reasoning++
				if s.firstToken.IsZero() {
					s.firstToken = ev.at
				}
			case d.Content != nil && *d.Content != "":
				s.tokens++
				s.content += *d.Content
				if s.firstToken.IsZero() {
					s.firstToken = ev.at
				}
				if s.firstAnswer.IsZero() {
					s.firstAnswer = ev.at
				}
			case d.Role != nil:
				s.roleOnly++
			case d.Content != nil:
				s.empty++
			}
		}
	}
	return s
}

// rawBody reads at most n bytes, for responses that are not event streams.
func rawBody(t testing.TB, resp *http.Response, n int64) string {
	t.Helper()
	var b bytes.Buffer
	io.Copy(&b, io.LimitReader(resp.Body, n))
	resp.Body.Close()
	return b.String()
}
