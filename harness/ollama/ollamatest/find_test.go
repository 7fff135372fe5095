package ollamatest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records Skip and Fatal instead of ending the goroutine, so the
// decision itself can be tested; the embedded real T serves the rest.
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }

func TestOllamaSkipOrFatal(t *testing.T) {
	bogus := filepath.Join(t.TempDir(), "models")
	if err := os.MkdirAll(bogus, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bogus, ModelFile), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		ci        string
		opts      []Option
		model     string // LLMSLA_TEST_MODEL
		wantSkip  bool
		wantFatal string
	}{
		"missing binary, local":    {opts: []Option{BinaryPath("/nonexistent/ollama")}, wantSkip: true},
		"missing binary, CI=false": {ci: "false", opts: []Option{BinaryPath("/nonexistent/ollama")}, wantSkip: true},
		"missing binary, CI=true":  {ci: "true", opts: []Option{BinaryPath("/nonexistent/ollama")}, wantFatal: "CI must not skip"},
		"missing model, CI=1":      {ci: "1", opts: []Option{ModelPath("/nonexistent.gguf")}, wantFatal: "CI must not skip"},
		"missing model, local":     {opts: []Option{ModelPath("/nonexistent.gguf")}, wantSkip: true},
		// A wrong file in place is a broken setup, not an absent one.
		"checksum mismatch, local": {model: filepath.Join(bogus, ModelFile), wantFatal: "checksum mismatch"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			if tc.model != "" {
				t.Setenv("LLMSLA_TEST_MODEL", tc.model)
				// Whatever binary there is must not matter; a real one
				// is needed to get as far as the model.
				tc.opts = append(tc.opts, BinaryPath(os.Args[0]))
			}
			f := &fakeTB{TB: t}
			if s := Start(f, tc.opts...); s != nil {
				t.Fatal("Start returned a server")
			}
			if tc.wantSkip && (f.skipped == "" || f.fatal != "") {
				t.Errorf("want skip, got skip %q, fatal %q", f.skipped, f.fatal)
			}
			if tc.wantFatal != "" && (!strings.Contains(f.fatal, tc.wantFatal) || f.skipped != "") {
				t.Errorf("want fatal with %q, got skip %q, fatal %q", tc.wantFatal, f.skipped, f.fatal)
			}
		})
	}
}

func TestOllamaBinaryFromEnv(t *testing.T) {
	t.Setenv("LLMSLA_OLLAMA", "/nonexistent/ollama")
	if _, err := Binary(); !errors.Is(err, ErrNoBinary) {
		t.Errorf("Binary() with a missing $LLMSLA_OLLAMA: err %v, want ErrNoBinary", err)
	}
	t.Setenv("LLMSLA_OLLAMA", os.Args[0])
	if p, err := Binary(); err != nil || p != os.Args[0] {
		t.Errorf("Binary() = %q, %v; want %q", p, err, os.Args[0])
	}
}

// TestOllamaBinaryPrefersGoBin: the ollama `make ollama` built (in GOBIN)
// wins over another on PATH, as .ci/install-ollama.sh chooses.
func TestOllamaBinaryPrefersGoBin(t *testing.T) {
	gobin, path := t.TempDir(), t.TempDir()
	for _, dir := range []string{gobin, path} {
		if err := os.WriteFile(filepath.Join(dir, "ollama"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("LLMSLA_OLLAMA", "")
	t.Setenv("GOBIN", gobin)
	t.Setenv("PATH", path)
	if p, err := Binary(); err != nil || p != filepath.Join(gobin, "ollama") {
		t.Errorf("Binary() = %q, %v; want the one in GOBIN %s", p, err, gobin)
	}
}

// TestOllamaModelInRepository: a clone finds the model it carries, from
// a package directory, and nowhere outside the module.
func TestOllamaModelInRepository(t *testing.T) {
	t.Setenv("LLMSLA_TEST_MODEL", "")
	got, err := Model()
	if err != nil {
		t.Fatalf("Model() in the repository: %v", err)
	}
	if !strings.HasSuffix(got, filepath.Join("fixtures", "models", ModelFile)) {
		t.Errorf("Model() = %q, want fixtures/models/%s", got, ModelFile)
	}
	t.Chdir(t.TempDir())
	if _, err := Model(); !errors.Is(err, ErrNoModel) {
		t.Errorf("Model() outside a module: err %v, want ErrNoModel", err)
	}
}
