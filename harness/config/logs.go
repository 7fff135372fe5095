package config

import (
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/llmsla/llmsla/harness/trace"
)

// Logs says how to read production's request logs (logs: in the file),
// for llmsla verdict -log and llmsla gate -log: the log's name of each
// field llmsla reads, over the seed's structlog names
// (trace.DefaultLogFields), and the length of the windows judged.
type Logs struct {
	fields map[string]string // logs.fields as written: llmsla's key → the log's field
	Window time.Duration     // 0: the command's default
}

// logFieldKeys are logs.fields' keys, each where it goes.
var logFieldKeys = []struct {
	key  string
	into func(f *trace.LogFields) *string
}{
	{"timestamp", func(f *trace.LogFields) *string { return &f.Timestamp }},
	{"timestamp_unit", func(f *trace.LogFields) *string { return (*string)(&f.Unit) }},
	{"scenario", func(f *trace.LogFields) *string { return &f.Scenario }},
	{"endpoint", func(f *trace.LogFields) *string { return &f.Endpoint }},
	{"ttft_ms", func(f *trace.LogFields) *string { return &f.TTFT }},
	{"tpot_ms", func(f *trace.LogFields) *string { return &f.TPOT }},
	{"total_ms", func(f *trace.LogFields) *string { return &f.Total }},
	{"output_tokens", func(f *trace.LogFields) *string { return &f.OutputTokens }},
	{"prompt_tokens", func(f *trace.LogFields) *string { return &f.PromptTokens }},
	{"error", func(f *trace.LogFields) *string { return &f.Error }},
	{"event", func(f *trace.LogFields) *string { return &f.Event }},
	{"event_value", func(f *trace.LogFields) *string { return &f.EventValue }},
}

// Fields are the log's field names: the file's logs.fields over the
// defaults.
func (l Logs) Fields() trace.LogFields {
	f := trace.DefaultLogFields()
	for _, k := range logFieldKeys {
		if v, ok := l.fields[k.key]; ok {
			*k.into(&f) = v
		}
	}
	return f
}

// logs reads the logs: block.
func (p *configParser) logs(cfg *Config, v *yaml.Node) {
	logsKeys.parse(p, v, "logs", &cfg.Logs)
}

// logsKeys are the logs: block's keys.
var logsKeys = section[*Logs]{
	{"fields", "the log's name of each field llmsla reads", func(p *configParser, l *Logs, v *yaml.Node, key string) {
		keys := make([]string, len(logFieldKeys))
		for i, k := range logFieldKeys {
			keys[i] = k.key
		}
		l.fields = map[string]string{}
		p.mapping(v, key, keys, func(k string, v *yaml.Node) {
			name := p.str(v, key+"."+k)
			if k == "timestamp_unit" && !slices.Contains(trace.Units, trace.Unit(name)) {
				p.errf(v, key+"."+k, "%q is not a timestamp unit (allowed: datetime, s, ms, us, ns)", name)
			}
			if name == "" && k != "event" && k != "total_ms" && k != "prompt_tokens" && k != "error" {
				p.errf(v, key+"."+k, "want the log's field name (only event, total_ms, prompt_tokens and error may be \"\": none)")
			}
			l.fields[k] = strings.TrimSpace(name)
		})
	}},
	{"window", "the length of the windows judged", func(p *configParser, l *Logs, v *yaml.Node, key string) {
		d, err := time.ParseDuration(p.str(v, key))
		if err != nil {
			p.errf(v, key, "%q is not a duration (e.g. 1h, 15m)", v.Value)
		} else if err := trace.CheckWindow(d); err != nil {
			p.errf(v, key, "%v", err)
		}
		l.Window = d
	}},
}
