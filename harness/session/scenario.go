package session

import "fmt"

// Scenario is one workload as a suite declares it: what to ask and how to
// judge the answers. How many requests, at which load and against which
// objectives comes from the SLA file, per endpoint. It is plain data: the
// test binary hands the definitions of its suites to the command (plan
// mode), which can then measure them itself (llmsla capacity, llmsla ab).
type Scenario struct {
	Name    string `json:"name"`              // the key in the SLA file: chat, extraction, summary, batch, …
	Fixture string `json:"fixture,omitempty"` // JSONL cases, relative to the module root
	System  string `json:"system,omitempty"`  // system prompt sent before each case's messages
	// Structured asks the endpoint for structured output: response_format
	// json_schema with the case's schema (json_object when it has none).
	Structured bool `json:"structured,omitempty"`
	Lenient    bool `json:"lenient,omitempty"` // accept JSON inside a fence or prose, counted apart
	// Temperature and Seed make answers deterministic where the endpoint
	// allows it (golden outputs).
	Temperature *float32 `json:"temperature,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
	// Golden, a directory relative to the module root, compares each case's
	// answer with its golden file (go test -update rewrites them). It needs
	// Temperature 0 and a Seed.
	Golden string `json:"golden,omitempty"`
	// Rubric, a rubric file relative to the module root, has a judge
	// judge every case's answer besides its own checks, when the SLA file
	// names a judge (judge: {endpoint: …}); without one the run says its
	// answers were not judged.
	Rubric string `json:"rubric,omitempty"`
	// Embeddings: each case's messages are inputs embedded together, by
	// endpoints of api: embeddings only (on any other the scenario is not
	// measured, and says so; a generating scenario is not measured on an
	// embeddings endpoint either). Its answers are the vectors'
	// similarities (sample.Embedding), judged by embedding_rank.
	Embeddings bool `json:"embeddings,omitempty"`
}

// Deterministic reports whether sc asks for reproducible answers, which a
// golden comparison needs.
func (sc Scenario) Deterministic() bool {
	return sc.Temperature != nil && *sc.Temperature == 0 && sc.Seed != nil
}

// Check reports a scenario that cannot be measured as written.
func (sc Scenario) Check() error {
	switch {
	case sc.Fixture == "":
		return fmt.Errorf("scenario %s: no fixture: a scenario needs cases to send", sc.Name)
	case sc.Golden != "" && !sc.Deterministic():
		return fmt.Errorf("scenario %s: golden outputs need Temperature 0 and a Seed", sc.Name)
	}
	return nil
}
