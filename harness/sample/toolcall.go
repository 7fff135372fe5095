package sample

// ToolCall is one function call of an answer, as the client assembled it
// from the streamed deltas (METRICS.md, tool_calls). Arguments is the
// concatenated string the server sent, normally JSON, unchecked here:
// harness/quality parses and validates it.
type ToolCall struct {
	// Index is the server's index of the call, or its position among the
	// answer's calls when the server gave none.
	Index     int    `json:"index"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// ArgumentsCut says the arguments were cut at the capture limit (the
	// client's MaxContent, shared by all calls).
	ArgumentsCut bool `json:"arguments_cut,omitempty"`
}

// Bounds on what a response's tool calls can be in a sample: the client
// keeps at most MaxToolCalls calls (and says when it dropped more), and
// cuts names and ids at MaxToolName bytes; a samples file holding more is
// refused (Sample.Check).
const (
	MaxToolCalls = 128
	MaxToolName  = 256
)
