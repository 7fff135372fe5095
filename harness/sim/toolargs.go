package sim

import (
	"encoding/json"
	"math"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// The arguments the simulator makes up: those a tool's schema requires,
// for a request no hook knows, and wrong ones, for Config.ToolWrongRate.

// defaultToolCalls is the model's call when no hook says otherwise: the
// tool tool_choice names, else the first one offered, with the arguments
// its schema requires; once, so that after its result the model answers.
func defaultToolCalls(req *openai.ChatCompletionRequest) []ToolCall {
	if toolSteps(req) > 0 {
		return nil
	}
	name := namedChoice(req.ToolChoice)
	for _, t := range req.Tools {
		if t.Function != nil && (name == "" || t.Function.Name == name) {
			return []ToolCall{{Name: t.Function.Name, Arguments: string(mustJSON(exampleValue(t.Function.Parameters, 0)))}}
		}
	}
	return nil
}

// namedChoice is the function a tool_choice object names
// ({"type":"function","function":{"name":…}}), "" for any other choice.
func namedChoice(choice any) string {
	m, _ := choice.(map[string]any)
	f, _ := m["function"].(map[string]any)
	name, _ := f["name"].(string)
	return name
}

// toolSchema is the parameters schema of the tool named name that req
// offers, nil if none.
func toolSchema(req *openai.ChatCompletionRequest, name string) any {
	for _, t := range req.Tools {
		if t.Function != nil && t.Function.Name == name {
			return t.Function.Parameters
		}
	}
	return nil
}

// maxSchemaDepth bounds the recursion into a request's nested schemas.
const maxSchemaDepth = 8

// exampleValue is a value valid against a simple JSON schema: its first
// enum value or its const, else one of its type, an object holding its
// required properties only.
func exampleValue(schema any, depth int) any {
	s, _ := schema.(map[string]any)
	if enum, _ := s["enum"].([]any); len(enum) > 0 {
		return enum[0]
	}
	if v, ok := s["const"]; ok {
		return v
	}
	low, hasMin := s["minimum"].(float64)
	switch schemaType(s) {
	case "string":
		return "sim"
	case "integer":
		if hasMin {
			return math.Ceil(low)
		}
		return 1
	case "number":
		if hasMin {
			return low
		}
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "null":
		return nil
	}
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]any)
	for _, r := range required {
		if name, ok := r.(string); ok && depth < maxSchemaDepth {
			out[name] = exampleValue(props[name], depth+1)
		}
	}
	return out
}

// schemaType is a schema's type, the first that is not "null" of a list.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if name, ok := x.(string); ok && name != "null" {
				return name
			}
		}
	}
	return ""
}

// wrongArguments changes the value of the first property (in key order)
// of a call's arguments, keeping its type and, where the schema has an
// enum, taking another of its values: JSON that parses and, for simple
// schemas, still validates, but is not what the case expects. Arguments
// that are not an object, or an empty one, get a property they did not
// have.
func wrongArguments(args string, schema any) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil || len(m) == 0 {
		return `{"sim_wrong":true}`
	}
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	m[keys[0]] = wrongValue(m[keys[0]], props[keys[0]], 0)
	return string(mustJSON(m))
}

func wrongValue(v, schema any, depth int) any {
	s, _ := schema.(map[string]any)
	if enum, _ := s["enum"].([]any); len(enum) > 1 {
		for i, e := range enum {
			if equalJSON(e, v) {
				return enum[(i+1)%len(enum)]
			}
		}
		return enum[0]
	}
	switch x := v.(type) {
	case string:
		return "wrong-" + x
	case float64:
		return x + 1
	case bool:
		return !x
	case []any:
		if len(x) == 0 {
			return []any{"wrong"}
		}
		return x[1:]
	case map[string]any:
		if len(x) == 0 || depth >= maxSchemaDepth {
			return map[string]any{"sim_wrong": true}
		}
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		x[keys[0]] = wrongValue(x[keys[0]], props[keys[0]], depth+1)
		return x
	}
	return "wrong"
}

func equalJSON(a, b any) bool {
	return string(mustJSON(a)) == string(mustJSON(b))
}
