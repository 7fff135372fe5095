package main

import (
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/escape"
	"github.com/llmsla/llmsla/harness/secret"
)

// redacting wraps stdout and stderr in the configuration's redactor and the
// terminal's escaper: the second line of defence, behind the client's
// redaction and each message's escaping, so that no secret and no control
// sequence a server sent is printed. Call done when finished, to flush.
func redacting(cfg *config.Config, stdout, stderr io.Writer) (so, se io.Writer, sec *secret.Set, done func()) {
	sec = secret.New(cfg.Secrets()...)
	ro, re := secret.NewWriter(stdout, sec), secret.NewWriter(stderr, sec)
	o, e := escape.NewWriter(ro), escape.NewWriter(re)
	return o, e, sec, func() { o.Close(); e.Close(); ro.Close(); re.Close() }
}
