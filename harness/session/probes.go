package session

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The provenance probes' readers: each takes a server's documented
// answer and returns what it says of the model and server, as provenance
// keys below endpoint.NAME (model.digest, server.version, …). A body that
// is not the shape expected says nothing: an answer from another kind of
// server, or a 200 from a proxy's error page, is unknown, not an error.

// facts are some provenance keys below an endpoint and their values.
type facts map[string]string

// readModels reads GET /v1/models (OpenAI's list) for the entry of model:
// the one of that id, Ollama's name:latest for name, or the only one a
// single-model server lists (llama.cpp answers whatever is asked). vLLM's
// entries add root (the served model's path or repository: its digest)
// and max_model_len.
func readModels(b []byte, model string) facts {
	var list struct {
		Data []struct {
			ID          string  `json:"id"`
			OwnedBy     string  `json:"owned_by"`
			Created     *int64  `json:"created"`
			Root        string  `json:"root"`
			MaxModelLen *int64  `json:"max_model_len"`
			Parent      *string `json:"parent"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &list) != nil {
		return nil
	}
	pick := -1
	for i, m := range list.Data {
		if m.ID == model || m.ID == model+":latest" {
			pick = i
			break
		}
	}
	if pick < 0 && len(list.Data) == 1 {
		pick = 0
	}
	if pick < 0 {
		return nil
	}
	m := list.Data[pick]
	f := facts{"model.id": m.ID, "model.owned_by": m.OwnedBy, "model.digest": m.Root}
	if m.Created != nil {
		f["model.created"] = time.Unix(*m.Created, 0).UTC().Format(time.RFC3339)
	}
	if m.MaxModelLen != nil {
		f["model.context_length"] = strconv.FormatInt(*m.MaxModelLen, 10)
	}
	return f
}

// readVersion reads {"version": "…"}: vLLM's GET /version, Ollama's GET
// /api/version.
func readVersion(b []byte) string {
	var v struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	return v.Version
}

// ollamaDetails are the details of a model in Ollama's /api/tags and
// /api/show.
type ollamaDetails struct {
	Format            string `json:"format"`
	Family            string `json:"family"`
	ParameterSize     string `json:"parameter_size"`
	QuantizationLevel string `json:"quantization_level"`
}

func (d ollamaDetails) facts() facts {
	return facts{"model.family": d.Family, "model.parameter_size": d.ParameterSize, "model.quantization": d.QuantizationLevel, "model.format": d.Format}
}

// readOllamaTags reads Ollama's GET /api/tags for model (name, or
// name:latest): its digest and details.
func readOllamaTags(b []byte, model string) facts {
	var tags struct {
		Models []struct {
			Name    string        `json:"name"`
			Model   string        `json:"model"`
			Digest  string        `json:"digest"`
			Details ollamaDetails `json:"details"`
		} `json:"models"`
	}
	if json.Unmarshal(b, &tags) != nil {
		return nil
	}
	for _, m := range tags.Models {
		for _, n := range []string{m.Name, m.Model} {
			if n != "" && (n == model || n == model+":latest") {
				f := m.Details.facts()
				f["model.digest"] = m.Digest
				return f
			}
		}
	}
	return nil
}

// readOllamaShow reads Ollama's POST /api/show: the model's details and,
// from model_info, its context length ("<architecture>.context_length").
func readOllamaShow(b []byte) facts {
	var show struct {
		Details   ollamaDetails              `json:"details"`
		ModelInfo map[string]json.RawMessage `json:"model_info"`
	}
	if json.Unmarshal(b, &show) != nil {
		return nil
	}
	f := show.Details.facts()
	var arch string
	if raw, ok := show.ModelInfo["general.architecture"]; ok && json.Unmarshal(raw, &arch) == nil && arch != "" {
		var n json.Number
		if raw, ok := show.ModelInfo[arch+".context_length"]; ok && json.Unmarshal(raw, &n) == nil {
			f["model.context_length"] = n.String()
		}
	}
	return f
}

// readLlamaProps reads llama.cpp's GET /props: the model file served (its
// digest, as vLLM's root), the context size of a slot, the slots and the
// build.
func readLlamaProps(b []byte) facts {
	var props struct {
		ModelPath string `json:"model_path"`
		BuildInfo string `json:"build_info"`
		Slots     *int   `json:"total_slots"`
		Defaults  struct {
			NCtx  *int   `json:"n_ctx"`
			Model string `json:"model"`
		} `json:"default_generation_settings"`
	}
	if json.Unmarshal(b, &props) != nil || props.Slots == nil && props.BuildInfo == "" && props.ModelPath == "" {
		return nil // another server's /props, or none
	}
	f := facts{"server.kind": "llama.cpp", "server.version": props.BuildInfo, "model.digest": props.ModelPath}
	if f["model.digest"] == "" {
		f["model.digest"] = props.Defaults.Model
	}
	if props.Defaults.NCtx != nil {
		f["model.context_length"] = strconv.Itoa(*props.Defaults.NCtx)
	}
	if props.Slots != nil {
		f["server.slots"] = strconv.Itoa(*props.Slots)
	}
	return f
}

// serverHeaders are the response headers that name a server or what is
// in front of it: Server (uvicorn for vLLM and SGLang, llama.cpp,
// cloudflare), Via, X-Powered-By, and OpenAI's openai-version.
var serverHeaders = []string{"Server", "Via", "X-Powered-By", "Openai-Version"}

// readHeaders reads the identification headers of a response.
func readHeaders(h http.Header) facts {
	f := facts{}
	for _, k := range serverHeaders {
		if v := h.Get(k); v != "" {
			f["server.header."+strings.ToLower(k)] = v
		}
	}
	return f
}
