package main

import (
	"flag"
	"os"

	"github.com/llmsla/llmsla/harness/config"
	"github.com/llmsla/llmsla/harness/gate/gateci"
	"github.com/llmsla/llmsla/harness/secret"
)

// ciFlags declares -junit on fs: what bench, verdict and gate write for
// CI beside their log (gateci.Outputs).
func ciFlags(fs *flag.FlagSet) *gateci.Outputs {
	c := &gateci.Outputs{Secrets: envSecrets}
	fs.StringVar(&c.JUnit, "junit", "", "also write the result as JUnit XML to `FILE`, for CI's test reports (written whatever the exit code)")
	return c
}

// envSecrets are the secrets of the configuration a command would load,
// for a command that failed before it loaded one.
func envSecrets() *secret.Set {
	if cfg, err := config.LoadWithoutKeys(); err == nil {
		return secret.New(cfg.Secrets()...)
	}
	return secret.New(os.Getenv("OPENAI_API_KEY"))
}
