package judge

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmsla/llmsla/harness/internal/jsonl"
	"github.com/llmsla/llmsla/harness/judge/rubric"

	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/sample"
)

// Identity is who judges: what a cached judgment was given by, so that
// another model, or the same name serving other weights, asks again.
type Identity struct {
	Model string
	// Digest is the judge's weights where the server says (an Ollama
	// model's digest; the simulator's judge settings), "" where it
	// cannot be known before asking (a hosted API).
	Digest string
	// Seed and MaxTokens are sent with every judgment: another seed or
	// budget is another judgment.
	Seed      int
	MaxTokens int
}

// Key is the cache key of a judgment: a hash of the prompt's version, the
// judge's identity, the rubric's digest and hashes of the question, the
// reference and the answer. The texts themselves are never stored.
func Key(id Identity, r *rubric.Rubric, it rubric.Item) string {
	h := sha256.New()
	part := func(s string) {
		sum := sha256.Sum256([]byte(s))
		h.Write(sum[:])
	}
	part(rubric.PromptVersion)
	part(id.Model)
	part(id.Digest)
	fmt.Fprintf(h, "%d %d", id.Seed, id.MaxTokens)
	part(r.Digest())
	part(it.Question)
	if r.Reference {
		part(it.Reference)
	}
	part(it.Answer)
	return hex.EncodeToString(h.Sum(nil))
}

// Entry is one cached judgment, a line of the cache file. It holds the
// key and the verdict, and names the judge, rubric and case for a person
// reading the file; no question or answer text.
type Entry struct {
	Key    string    `json:"key"`
	Judge  string    `json:"judge"`
	Model  string    `json:"model"`
	Digest string    `json:"digest,omitempty"`
	Rubric string    `json:"rubric"`
	Case   string    `json:"case,omitempty"`
	At     time.Time `json:"at"`
	rubric.Verdict
}

// check reports what makes e no entry a judge wrote, naming the key.
func (e *Entry) check() error {
	if len(e.Key) != 64 || strings.Trim(e.Key, "0123456789abcdef") != "" {
		return fmt.Errorf("key: %q is not a judgment's key (64 hex digits)", cutText(e.Key))
	}
	if math.IsNaN(e.Score) || e.Score < 0 || e.Score > sample.MaxJudgeScore {
		return fmt.Errorf("score: %v (allowed: 0 to %d)", e.Score, sample.MaxJudgeScore)
	}
	if len(e.Reason) > sample.MaxJudgeText {
		return fmt.Errorf("reason: %d bytes (allowed: at most %d)", len(e.Reason), sample.MaxJudgeText)
	}
	for _, f := range []struct{ key, v string }{{"judge", e.Judge}, {"model", e.Model}, {"digest", e.Digest}, {"rubric", e.Rubric}, {"case", e.Case}} {
		if f.v == "" && (f.key == "digest" || f.key == "case") {
			continue // optional
		}
		if err := escape.CheckLine(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.key, err)
		}
	}
	return nil
}

// Cache is the judgments a file holds: read when it opens, appended to as
// judgments are made. The file is the user's, to commit or delete; every
// line is redacted as it is written, as samples are.
type Cache struct {
	path    string
	mu      sync.Mutex
	entries map[string]Entry
	f       *jsonl.Appender
}

// Bounds of a cache file: a line is one judgment, and a file of judgments
// is read whole into memory when it opens.
const (
	maxCacheLine = 16 << 10
	maxCacheFile = 256 << 20
)

// OpenCache opens the cache at path, creating it (and its directory) when
// there is none. Every line is checked: one that is not a judgment fails
// the open, naming file:line and key, for a cache that cannot be read is
// not a cache to trust. rejudge reads nothing: every judgment is asked
// again, and the new entries, appended, win when the file is next read.
// redact filters every line written (nil: none).
func OpenCache(path string, redact func([]byte) []byte, rejudge bool) (*Cache, error) {
	c := &Cache{path: path, entries: map[string]Entry{}}
	if !rejudge {
		if err := c.read(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	f, err := jsonl.Create(path, "judge cache", redact)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	c.f = f
	return c, nil
}

func (c *Cache) read() error {
	f, err := os.Open(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("judge cache: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxCacheFile+1))
	sc.Buffer(make([]byte, 0, 4096), maxCacheLine)
	line, read := 0, 0
	for sc.Scan() {
		line++
		read += len(sc.Bytes()) + 1
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff")) // an editor's byte-order mark
		}
		if len(b) == 0 {
			continue
		}
		if k := jsonl.RepeatedKey(b); k != "" {
			return c.lineError(line, escape.Text(k), "given twice: which one is the judgment is not known")
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return c.lineError(line, "json", fmt.Sprintf("not a judgment: %v", err))
		}
		if err := e.check(); err != nil {
			return c.lineError(line, "", err.Error())
		}
		c.entries[e.Key] = e // a later line wins: what -rejudge appended
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return c.lineError(line+1, "", fmt.Sprintf("a line longer than %d bytes, which no judgment is", maxCacheLine))
	case err != nil:
		return fmt.Errorf("judge cache %s: %w", c.path, err)
	case read > maxCacheFile:
		return fmt.Errorf("judge cache %s: larger than %d MiB: delete it, or run with -rejudge", c.path, maxCacheFile>>20)
	}
	return nil
}

func (c *Cache) lineError(line int, key, msg string) error {
	if key != "" {
		msg = key + ": " + msg
	}
	return fmt.Errorf("%s:%d: %s (delete the line or the file, or run with -rejudge)", c.path, line, msg)
}

// Get returns the cached judgment of key.
func (c *Cache) Get(key string) (Entry, bool) {
	if c == nil {
		return Entry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok
}

// Put caches a judgment and appends it to the file, redacted. A write
// that fails is kept (Err) and the judgment stays cached in memory.
func (c *Cache) Put(e Entry) {
	if c == nil {
		return
	}
	// A reason within the schema's characters may be past the bytes a
	// cache line (and a sample) holds: cut, so that the file reads back.
	e.Reason = cutBytes(e.Reason, sample.MaxJudgeText)
	if err := e.check(); err != nil {
		return // not a judgment the file can hold: asked again next run
	}
	c.mu.Lock()
	c.entries[e.Key] = e
	c.mu.Unlock()
	c.f.Append(e)
}

// Len is the number of judgments cached.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Err is the first write error, nil when every judgment was written.
func (c *Cache) Err() error {
	if c == nil {
		return nil
	}
	return c.f.Err()
}

// Close closes the file.
func (c *Cache) Close() error {
	if c == nil || c.f == nil {
		return nil
	}
	return c.f.Close()
}

// cutBytes cuts s to at most n bytes, on a rune's boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutText shortens a value quoted in an error.
func cutText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
