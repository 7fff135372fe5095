// Package examples holds configuration to copy into other systems (CI,
// Kubernetes); its test decodes each file with the schema of the system
// that will read it, so that an example cannot rot unnoticed.
package examples

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8syaml "sigs.k8s.io/yaml"
)

// TestKubernetesIndexedJob decodes the Job strictly with the official API
// types (an unknown or misspelt field is an error) and checks what makes it
// a sharded llmsla run: one pod per shard, all at once, each told the
// shard count and the agreed start, the key from a Secret.
func TestKubernetesIndexedJob(t *testing.T) {
	b, err := os.ReadFile("kubernetes-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := k8syaml.UnmarshalStrict(b, &job); err != nil {
		t.Fatalf("kubernetes-indexed-job.yaml does not decode as a batch/v1 Job: %v", err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("apiVersion %q kind %q, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Error("completionMode must be Indexed: each pod's JOB_COMPLETION_INDEX is its shard")
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
		t.Fatal("completions and parallelism must be set and equal: the shards run at the same time")
	}
	n := int(*spec.Completions)
	if len(spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want one", len(spec.Template.Spec.Containers))
	}
	c := spec.Template.Spec.Containers[0]
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if env["LLMSLA_SHARDS"].Value != strconv.Itoa(n) {
		t.Errorf("LLMSLA_SHARDS %q, want %d (= completions)", env["LLMSLA_SHARDS"].Value, n)
	}
	if key := env["OPENAI_API_KEY"]; key.ValueFrom == nil || key.ValueFrom.SecretKeyRef == nil || key.Value != "" {
		t.Error("the API key must come from a Secret (valueFrom.secretKeyRef), never a literal")
	}
	if !slices.Contains(c.Command, "bench") || !slices.Contains(c.Command, "-start-at") {
		t.Errorf("command %v: want llmsla bench with -start-at", c.Command)
	}
}

// TestGitHubActionsShards: the workflow is valid YAML whose merge job
// needs the shard matrix, and whose matrix has one job per shard; the merge
// job judges the pooled run (llmsla verdict) and gates it (llmsla gate).
func TestGitHubActionsShards(t *testing.T) {
	b, err := os.ReadFile("github-actions-shards.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Needs    any `yaml:"needs"`
			Strategy struct {
				Matrix struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("github-actions-shards.yml: %v", err)
	}
	shard, ok := wf.Jobs["shard"]
	if !ok || len(shard.Strategy.Matrix.Shard) < 2 {
		t.Fatal("no shard job with a matrix of shards")
	}
	merge, ok := wf.Jobs["merge"]
	if !ok {
		t.Fatal("no merge job")
	}
	needs := merge.Needs
	if s, ok := needs.(string); ok {
		needs = []any{s}
	}
	if list, _ := needs.([]any); !slices.Contains(list, any("shard")) {
		t.Errorf("merge needs %v, want the shard matrix", merge.Needs)
	}
	// The header promises one verdict and a gate over the merged shards.
	ran := map[string]bool{}
	for _, s := range merge.Steps {
		if strings.HasPrefix(s.Run, "go run ./cmd/llmsla ") {
			ran[word(s.Run, 3)] = true
		}
	}
	for _, cmd := range []string{"verdict", "gate"} {
		if !ran[cmd] {
			t.Errorf("the merge job runs no llmsla %s over the shards", cmd)
		}
	}
}

// word is the i-th space-separated word of s, "" when there are fewer.
func word(s string, i int) string {
	if w := strings.Fields(s); i < len(w) {
		return w[i]
	}
	return ""
}

// TestGitHubActionsEnvironments: every step of the workflows that points
// llmsla at an endpoint through OPENAI_BASE_URL also names the model
// (LLMSLA_MODEL), which the configuration requires before any request.
func TestGitHubActionsEnvironments(t *testing.T) {
	for _, file := range []string{"github-actions.yml", "github-actions-shards.yml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Name string            `yaml:"name"`
					Env  map[string]string `yaml:"env"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				if _, url := s.Env["OPENAI_BASE_URL"]; url && s.Env["LLMSLA_MODEL"] == "" {
					t.Errorf("%s: job %s, step %q sets OPENAI_BASE_URL without LLMSLA_MODEL", file, job, s.Name)
				}
			}
		}
	}
}
