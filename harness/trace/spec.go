package trace

import (
	"fmt"
	"slices"
	"time"
)

// Format is how a trace file writes its rows.
type Format string

// The formats a trace may be in.
const (
	Mooncake Format = "mooncake"  // JSONL: timestamp (ms), input_length, output_length, hash_ids
	AzureCSV Format = "azure_csv" // CSV: TIMESTAMP (a date and time), ContextTokens, GeneratedTokens
	JSONL    Format = "jsonl"     // JSONL under a column mapping
	CSV      Format = "csv"       // CSV with a header line, under a column mapping
)

// Formats lists the formats, for configuration errors.
var Formats = []Format{Mooncake, AzureCSV, JSONL, CSV}

// Unit is how a timestamp column is written.
type Unit string

// The timestamp units: a number of seconds, milliseconds, microseconds or
// nanoseconds from any origin, or a date and time (RFC 3339, or
// "2006-01-02 15:04:05.9999999" as Azure's trace writes it, read as UTC).
const (
	Seconds  Unit = "s"
	Millis   Unit = "ms"
	Micros   Unit = "us"
	Nanos    Unit = "ns"
	DateTime Unit = "datetime"
)

// Units lists the timestamp units, for configuration errors.
var Units = []Unit{Seconds, Millis, Micros, Nanos, DateTime}

// Columns name the fields of a row: where its timestamp (and in which
// unit), its input and output lengths in tokens, its messages and its
// prefix-block hashes are. Input may be absent when Messages is there (the
// messages are the prompt); Messages and Hashes are optional.
type Columns struct {
	Timestamp string
	Unit      Unit
	Input     string
	Output    string
	Messages  string
	Hashes    string
}

// DefaultColumns is each format's mapping: Mooncake's and Azure's own
// names, and for generic JSONL and CSV Mooncake's, in milliseconds.
func DefaultColumns(f Format) Columns {
	if f == AzureCSV {
		return Columns{Timestamp: "TIMESTAMP", Unit: DateTime, Input: "ContextTokens", Output: "GeneratedTokens"}
	}
	return Columns{Timestamp: "timestamp", Unit: Millis, Input: "input_length", Output: "output_length", Messages: "messages", Hashes: "hash_ids"}
}

// Over is c with the names o sets in place of c's.
func (c Columns) Over(o Columns) Columns {
	for _, f := range []struct {
		into *string
		from string
	}{
		{&c.Timestamp, o.Timestamp}, {(*string)(&c.Unit), string(o.Unit)}, {&c.Input, o.Input},
		{&c.Output, o.Output}, {&c.Messages, o.Messages}, {&c.Hashes, o.Hashes},
	} {
		if f.from != "" {
			*f.into = f.from
		}
	}
	return c
}

// DefaultBlock is the prompt tokens one hash id stands for: Mooncake's
// block size.
const DefaultBlock = 512

// Bounds on what a row may ask, so that a corrupt row is an error rather
// than a request of a billion tokens.
const (
	MaxTokens = 1 << 21 // input or output length
	MaxHashes = 1 << 14 // hash ids of one row
	MaxLine   = 4 << 20 // bytes of one line
)

// Spec is a trace as a scenario names it: its file, format and mapping,
// and the part of it replayed. Speedup is not here: each speedup is a
// level of the same trace.
type Spec struct {
	File    string
	Format  Format
	Columns Columns // over the format's defaults
	// Start and End crop the trace, as offsets from its first row: rows at
	// or after Start and before End (0: to the end) are replayed, Start
	// being the replay's instant 0.
	Start, End time.Duration
	// Block is the prompt tokens each hash id stands for (DefaultBlock
	// when 0).
	Block int
}

// columns is the mapping the spec reads with.
func (s Spec) columns() Columns { return DefaultColumns(s.Format).Over(s.Columns) }

// block is the hash block size.
func (s Spec) block() int {
	if s.Block > 0 {
		return s.Block
	}
	return DefaultBlock
}

// Validate reports a spec that cannot be read.
func (s Spec) Validate() error {
	c := s.columns()
	switch {
	case s.File == "":
		return fmt.Errorf("trace: no file")
	case !slices.Contains(Formats, s.Format):
		return fmt.Errorf("trace format %q: want one of %v", s.Format, Formats)
	case !slices.Contains(Units, c.Unit):
		return fmt.Errorf("trace timestamp unit %q: want one of %v", c.Unit, Units)
	case c.Timestamp == "" || c.Output == "" || (c.Input == "" && c.Messages == ""):
		return fmt.Errorf("trace columns: want timestamp, output and input (or messages) named")
	case s.Start < 0 || s.End < 0 || (s.End > 0 && s.End <= s.Start):
		return fmt.Errorf("trace start %v, end %v: want 0 ≤ start < end (end 0: to the end)", s.Start, s.End)
	case s.Block < 0 || s.Block > MaxTokens:
		return fmt.Errorf("trace block %d: want 1 to %d tokens a hash id (0: %d)", s.Block, MaxTokens, DefaultBlock)
	}
	return nil
}
