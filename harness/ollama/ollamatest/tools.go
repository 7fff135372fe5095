package ollamatest

// ToolModelName is the name the test model is also served under with a
// chat template that offers tools ("tiny-tools", from
// fixtures/models/Modelfile.tools): Ollama refuses a request with tools
// for a model whose template has no .Tools, and the gguf's own template
// has none. Its template renders an assistant's calls as {"name": …,
// "arguments": …}, which is how Ollama then recognises a call in the
// model's output: the random-weight model writes one only when its output
// is constrained to that shape (a response_format json_schema), and its
// arguments are gibberish of the right types.
func (s *Server) ToolModelName() string { return "tiny-tools" }
