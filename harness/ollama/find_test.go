package ollama

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
		shared    string // LLMSLA_SHARED
		wantSkip  bool
		wantFatal string
	}{
		"missing binary, local":    {opts: []Option{BinaryPath("/nonexistent/ollama")}, wantSkip: true},
		"missing binary, CI=false": {ci: "false", opts: []Option{BinaryPath("/nonexistent/ollama")}, wantSkip: true},
		"missing binary, CI=true":  {ci: "true", opts: []Option{BinaryPath("/nonexistent/ollama")}, wantFatal: "CI must not skip"},
		"missing model, CI=1":      {ci: "1", opts: []Option{ModelPath("/nonexistent.gguf")}, wantFatal: "CI must not skip"},
		"missing model, local":     {opts: []Option{ModelPath("/nonexistent.gguf")}, wantSkip: true},
		// A wrong file in place is a broken setup, not an absent one.
		"checksum mismatch, local": {shared: filepath.Dir(bogus), wantFatal: "checksum mismatch"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			if tc.shared != "" {
				t.Setenv("LLMSLA_SHARED", tc.shared)
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

// TestOllamaModelWalksUp lays out X/main/suites and X/shared/models, as a
// checkout sits beside the shared directory, and looks from the package
// directory.
func TestOllamaModelWalksUp(t *testing.T) {
	real, err := Model()
	if err != nil {
		t.Skipf("no test model here: %v", err)
	}
	x := t.TempDir()
	pkg := filepath.Join(x, "main", "suites")
	models := filepath.Join(x, "shared", "models")
	for _, d := range []string{pkg, models} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, filepath.Join(models, ModelFile)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LLMSLA_SHARED", "")
	t.Chdir(pkg)
	got, err := Model()
	if want := filepath.Join(models, ModelFile); err != nil || got != want {
		t.Errorf("Model() = %q, %v; want %q", got, err, want)
	}
	t.Chdir(t.TempDir()) // beside X, not in it
	if _, err := Model(); !errors.Is(err, ErrNoModel) {
		t.Errorf("Model() outside the layout: err %v, want ErrNoModel", err)
	}
}
