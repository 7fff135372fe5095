package main

import (
	"io"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/secret"
)

// redacting wraps stdout and stderr in the configuration's redactor: the
// second line of defence for everything a command prints (the samples come
// redacted from the client already). Call done when finished, to flush.
func redacting(cfg *config.Config, stdout, stderr io.Writer) (so, se io.Writer, sec *secret.Set, done func()) {
	sec = secret.New(cfg.Secrets()...)
	o, e := secret.NewWriter(stdout, sec), secret.NewWriter(stderr, sec)
	return o, e, sec, func() { o.Close(); e.Close() }
}
