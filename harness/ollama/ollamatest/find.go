package ollamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/llmsla/llmsla/harness/internal/modroot"
)

// ModelFile is the test model's file name and ModelSHA256 its checksum
// (fixtures/models/README.md).
const (
	ModelFile   = "llama-2-tiny-random.gguf"
	ModelSHA256 = "81f226c62d28ed4a1a9b9fa080fcd9f0cc40e0f9d5680036583ff98fbcd035cb"
)

// Sentinels for errors.Is. A missing binary or model makes a test skip (or
// fail under CI); a checksum mismatch always fails, because it means the
// wrong file is in place rather than none.
var (
	ErrNoBinary      = errors.New("ollama binary not found")
	ErrNoModel       = errors.New("test model not found")
	ErrModelChecksum = errors.New("test model checksum mismatch")
)

// Binary returns the path of the ollama binary: $LLMSLA_OLLAMA when set (and
// then only that, so a wrong setting is reported rather than papered over),
// else GOBIN or the first GOPATH's bin, where `make ollama` installs
// v0.11.4, else ollama on PATH: the order .ci/install-ollama.sh looks in,
// so an older ollama on PATH does not shadow the one it built.
func Binary() (string, error) {
	if p := os.Getenv("LLMSLA_OLLAMA"); p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("%w: $LLMSLA_OLLAMA=%s: %v", ErrNoBinary, p, err)
		}
		return p, nil
	}
	var tried []string
	for _, dir := range goBinDirs() {
		p := filepath.Join(dir, "ollama")
		if executable(p) == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	if p, err := exec.LookPath("ollama"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: not in $LLMSLA_OLLAMA, %s or PATH; run make ollama (.ci/install-ollama.sh)",
		ErrNoBinary, strings.Join(tried, ", "))
}

func goBinDirs() []string {
	if d := os.Getenv("GOBIN"); d != "" {
		return []string{d}
	}
	// build.Default.GOPATH honours $GOPATH and falls back to ~/go, as the go
	// command does; only the first entry gets binaries.
	gp, _, _ := strings.Cut(build.Default.GOPATH, string(os.PathListSeparator))
	if gp == "" {
		return nil
	}
	return []string{filepath.Join(gp, "bin")}
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// Model returns the path of the test model after checking its sha256:
// $LLMSLA_TEST_MODEL when set, else fixtures/models/<ModelFile> under the
// module root, where the repository keeps it (1.7 MB), so that a clone
// needs nothing beside it.
func Model() (string, error) {
	p, err := findModel()
	if err != nil {
		return "", err
	}
	sum, err := fileSHA256(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoModel, err)
	}
	if sum != ModelSHA256 {
		return "", fmt.Errorf("%w: %s has sha256 %s, want %s", ErrModelChecksum, p, sum, ModelSHA256)
	}
	return p, nil
}

func findModel() (string, error) {
	if p := os.Getenv("LLMSLA_TEST_MODEL"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: $LLMSLA_TEST_MODEL: %v", ErrNoModel, err)
		}
		return p, nil
	}
	root, err := modroot.FromWD()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoModel, err)
	}
	p := filepath.Join(root, "fixtures", "models", ModelFile)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: %v (the repository keeps it there; set $LLMSLA_TEST_MODEL to use another copy)", ErrNoModel, err)
	}
	return p, nil
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
