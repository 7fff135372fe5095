package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestUsage: `llmsla help` lists every command from the one table, each
// command's -h exits 0 and prints its flags, and every command is named in
// the docs a user reads (README.md or docs/), so that a command nobody
// documents, or a usage that drifts from the table, fails.
func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"help"}, &out, &errOut); code != exitOK {
		t.Fatalf("help: exit %d", code)
	}
	docs := readDocs(t)
	for _, c := range commands {
		if !strings.Contains(out.String(), "  "+strings.TrimSpace(c.name+" "+c.args)) {
			t.Errorf("help does not list %s:\n%s", c.name, &out)
		}
		var o, e bytes.Buffer
		if code := dispatch([]string{c.name, "-h"}, &o, &e); code != exitOK {
			t.Errorf("%s -h: exit %d", c.name, code)
		}
		if !strings.Contains(o.String()+e.String(), "-") {
			t.Errorf("%s -h printed no flags:\n%s%s", c.name, &o, &e)
		}
		if !strings.Contains(docs, "llmsla "+c.name) {
			t.Errorf("no doc names `llmsla %s`", c.name)
		}
	}
	if code := dispatch([]string{"bnech"}, &out, &errOut); code != exitBroken || !strings.Contains(errOut.String(), `unknown command "bnech"`) {
		t.Errorf("an unknown command: exit %d, %q", code, errOut.String())
	}
}

func readDocs(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	files := []string{"../../README.md"}
	entries, err := os.ReadDir("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			files = append(files, "../../docs/"+e.Name())
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}
