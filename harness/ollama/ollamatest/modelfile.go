package ollamatest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// modelfile is what the tests create a model from: the Modelfiles shipped
// beside the gguf (fixtures/models/Modelfile, Modelfile.tools), read
// here, so that the recipe fixtures/models/README.md and docs/ollama.md
// give a user is the one the tests serve.
type modelfile struct {
	from       string
	parameters map[string]any
	template   string
}

// readModelfile reads the FROM, PARAMETER and TEMPLATE lines of a
// Modelfile (TEMPLATE """…""" over several lines), the subset the
// shipped ones use; another instruction is an error naming file:line.
func readModelfile(path string) (modelfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return modelfile{}, err
	}
	defer f.Close()
	m := modelfile{parameters: map[string]any{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		instr, rest, _ := strings.Cut(text, " ")
		switch strings.ToUpper(instr) {
		case "FROM":
			m.from = strings.TrimSpace(rest)
		case "PARAMETER":
			k, v, _ := strings.Cut(strings.TrimSpace(rest), " ")
			if n, err := strconv.Atoi(v); err == nil {
				m.parameters[k] = n
			} else {
				m.parameters[k] = v
			}
		case "TEMPLATE":
			body, ok := strings.CutPrefix(strings.TrimSpace(rest), `"""`)
			if !ok {
				return m, fmt.Errorf("%s:%d: TEMPLATE: want \"\"\"…\"\"\"", path, line)
			}
			for !strings.HasSuffix(body, `"""`) && sc.Scan() {
				line++
				body += "\n" + sc.Text()
			}
			m.template = strings.TrimSuffix(body, `"""`)
		default:
			return m, fmt.Errorf("%s:%d: %s: not an instruction these tests read (FROM, PARAMETER, TEMPLATE)", path, line, instr)
		}
	}
	return m, sc.Err()
}
