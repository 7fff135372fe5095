package main

import (
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/secret"
)

// redacting wraps stdout and stderr in the configuration's redactor: the
// second line of defence for everything a command prints (the samples come
// redacted from the client already), and in the terminal's escaper
// (escape.Writer), the second line behind the escaping of each name and
// message from a file or an endpoint: no control sequence a server sent
// reaches the terminal. Call done when finished, to flush.
func redacting(cfg *config.Config, stdout, stderr io.Writer) (so, se io.Writer, sec *secret.Set, done func()) {
	sec = secret.New(cfg.Secrets()...)
	ro, re := secret.NewWriter(stdout, sec), secret.NewWriter(stderr, sec)
	o, e := escape.NewWriter(ro), escape.NewWriter(re)
	return o, e, sec, func() { o.Close(); e.Close(); ro.Close(); re.Close() }
}
