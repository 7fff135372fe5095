package escape

import "strings"

// CheckLine reports whether name can be printed as it is: not empty, valid
// UTF-8, no control character, line separator or bidi control (Text would
// have to escape it). A name that goes into benchmark lines and tables (a
// model) is checked where it is loaded, so that no line of output can be
// forged with it and the name printed is the name.
func CheckLine(name string) error {
	if name == "" {
		return &NameError{Why: "is empty", Allowed: lineAllowed}
	}
	if !clean(name) {
		return &NameError{Name: name, Why: "holds a control character, a line break, a bidi control or a byte that is not UTF-8", Allowed: lineAllowed}
	}
	return nil
}

// CheckFileName reports whether name can be one element of a path (the
// golden file of a case, the directory of an endpoint) as it is:
// CheckLine, and no "/" or "\", not "." or "..", at most MaxFileName
// bytes.
func CheckFileName(name string) error {
	if err := CheckLine(name); err != nil {
		err.(*NameError).Allowed = fileAllowed
		return err
	}
	why := ""
	switch {
	case strings.ContainsAny(name, `/\`):
		why = `holds a path separator ("/" or "\")`
	case name == "." || name == "..":
		why = `is "." or ".."`
	case len(name) > MaxFileName:
		why = "is longer than 200 bytes"
	default:
		return nil
	}
	return &NameError{Name: name, Why: why, Allowed: fileAllowed}
}

// MaxFileName is the longest name CheckFileName accepts: file systems take
// 255 bytes, and a suffix (".golden.got") must fit.
const MaxFileName = 200

const (
	lineAllowed = "printable text on one line"
	fileAllowed = `printable text on one line, at most 200 bytes, without "/" or "\", not "." or ".."`
)

// NameError is a name refused by CheckLine or CheckFileName. Its message
// shows the name as Text escapes it, and what a name may be.
type NameError struct {
	Name, Why, Allowed string
}

func (e *NameError) Error() string {
	s := e.Name
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return `"` + Text(s) + `" ` + e.Why + " (allowed: " + e.Allowed + ")"
}
