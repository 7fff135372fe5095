package secret

import (
	"strings"
	"testing"
)

// BenchmarkRedactBytes: the samples file's filter, once per line written
// (a line of about 1 KiB, and one holding a 1 MiB answer).
func BenchmarkRedactBytes(b *testing.B) {
	s := New(key, "another-secret-value", "https-query-token-123")
	for name, line := range map[string]string{
		"line=1KiB":             `{"scenario":"chat","endpoint":"sim","content":"` + strings.Repeat("lorem ipsum ", 80) + `"}`,
		"line=1MiB":             `{"scenario":"chat","endpoint":"sim","content":"` + strings.Repeat("lorem ipsum ", 1<<20/12) + `"}`,
		"line=1KiB/escapes=yes": `{"scenario":"chat","error":"undecodable chunk: {\"x\":\"a\\u002db\"` + strings.Repeat("lorem ipsum ", 80) + `"}`,
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			p := []byte(line)
			for b.Loop() {
				s.RedactBytes(p)
			}
		})
	}
}
