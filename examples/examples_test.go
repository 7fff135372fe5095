// Package examples holds configuration to copy into other systems (CI,
// Kubernetes); its test decodes each file with the schema of the system
// that will read it, so that an example cannot rot unnoticed.
package examples

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	// The header promises one verdict and a gate over the merged shards,
	// by the binary (go run would turn every failure into exit 1).
	ran := map[string]bool{}
	for _, s := range merge.Steps {
		if strings.HasPrefix(s.Run, "go run ./cmd/llmsla ") {
			t.Errorf("step %q runs llmsla through go run, which loses its exit code", s.Run)
		}
		if strings.HasPrefix(s.Run, "bin/llmsla ") {
			ran[word(s.Run, 1)] = true
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

// workflowStep is a step of a job of a GitHub Actions workflow.
type workflowStep struct {
	Name string            `yaml:"name"`
	ID   string            `yaml:"id"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]any    `yaml:"with"`
}

func jobSteps(t *testing.T, file, job string) []workflowStep {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	j, ok := wf.Jobs[job]
	if !ok {
		t.Fatalf("%s: no job %s", file, job)
	}
	return j.Steps
}

// TestExampleGitHubActionsCI: the workflow builds the binary and calls it, so
// that 0, 1 and 2 reach the job (never go run or make, which turn 1 into
// their own code); benches with the endpoint from secrets, writing a
// JUnit file, and keeps its exit code; gates against the committed
// baseline after a bench that recorded a run (0 or 1), not a broken one
// (2); adds the report to the step summary, which it leaves where GitHub
// put it; and uploads the JUnit files whatever happened.
func TestExampleGitHubActionsCI(t *testing.T) {
	steps := jobSteps(t, "github-actions.yml", "sla-gate")
	find := func(what string, ok func(workflowStep) bool) (int, workflowStep) {
		t.Helper()
		for i, s := range steps {
			if ok(s) {
				return i, s
			}
		}
		t.Fatalf("no step %s", what)
		return 0, workflowStep{}
	}
	runs := func(cmd string) func(workflowStep) bool {
		return func(s workflowStep) bool {
			return slices.ContainsFunc(lines(s.Run), func(l string) bool { return strings.HasPrefix(l, cmd) })
		}
	}
	build, _ := find("builds bin/llmsla", runs("go build -o bin/llmsla ./cmd/llmsla"))
	bench, bs := find("runs bin/llmsla bench", runs("bin/llmsla bench"))
	gate, gs := find("runs bin/llmsla gate", runs("bin/llmsla gate"))
	if !(build < bench && bench < gate) {
		t.Errorf("steps in the order build %d, bench %d, gate %d", build, bench, gate)
	}
	benchJUnit := flagValue(bs.Run, "bin/llmsla bench", "-junit")
	gateJUnit := flagValue(gs.Run, "bin/llmsla gate", "-junit")
	if benchJUnit == "" || gateJUnit == "" {
		t.Errorf("bench -junit %q, gate -junit %q: want both to write a JUnit file", benchJUnit, gateJUnit)
	}
	for _, k := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY"} {
		if !strings.HasPrefix(bs.Env[k], "${{ secrets.") {
			t.Errorf("bench step: %s = %q, want it from the repository's secrets", k, bs.Env[k])
		}
	}
	if w := strings.Fields(gs.Run); !slices.Contains(w, "golden/baseline.txt") || !slices.Contains(w, "results/latest.txt") {
		t.Errorf("gate step %q: want golden/baseline.txt results/latest.txt", gs.Run)
	}
	if bs.ID == "" || !strings.Contains(gs.If, "always()") || !strings.Contains(gs.If, "steps."+bs.ID+".outputs.code == '1'") ||
		strings.Contains(gs.If, "== '2'") {
		t.Errorf("gate step if: %q: want it after a bench that exited 0 or 1 (always(), steps.%s.outputs.code), not 2", gs.If, bs.ID)
	}
	for _, s := range steps {
		for _, l := range lines(s.Run) {
			if strings.HasPrefix(l, "go run ./cmd/llmsla") || strings.HasPrefix(l, "make ") {
				t.Errorf("step %q runs %q: go run and make lose the exit code", s.Name, l)
			}
		}
		if _, set := s.Env["GITHUB_STEP_SUMMARY"]; set {
			t.Errorf("step %q sets GITHUB_STEP_SUMMARY: its summary would not be shown", s.Name)
		}
	}
	find("adds the report to the step summary", func(s workflowStep) bool {
		return strings.Contains(s.Run, `bin/llmsla report -format markdown >> "$GITHUB_STEP_SUMMARY"`)
	})
	_, up := find("uploads the results", func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") })
	path, _ := up.With["path"].(string)
	if up.If != "always()" || !strings.Contains(path, benchJUnit) || !strings.Contains(path, gateJUnit) {
		t.Errorf("upload step: if %q, path %q: want always(), and both JUnit files", up.If, path)
	}

	// The bench step's script passes bench's exit code on and records it
	// for the gate's condition, under the shell GitHub runs it with.
	for _, want := range []int{0, 1, 2} {
		code, recorded := runStep(t, bs.Run, want)
		if code != want || recorded != fmt.Sprintf("code=%d\n", want) {
			t.Errorf("bench exiting %d: the step exits %d and records %q", want, code, recorded)
		}
	}
}

// runStep runs a step's script as GitHub does (bash -eo pipefail) in a
// directory whose bin/llmsla exits with code, and returns the script's
// exit code and what it wrote to $GITHUB_OUTPUT.
func runStep(t *testing.T, script string, code int) (int, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	fake := fmt.Sprintf("#!/bin/sh\nexit %d\n", code)
	if err := os.WriteFile(filepath.Join(dir, "bin", "llmsla"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "github_output")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GITHUB_OUTPUT="+out)
	err := cmd.Run()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	recorded, _ := os.ReadFile(out)
	return got, string(recorded)
}

// lines are the trimmed lines of a step's script.
func lines(run string) []string {
	var out []string
	for _, l := range strings.Split(run, "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// flagValue is the value of flag on the line of run that starts with cmd.
func flagValue(run, cmd, flag string) string {
	for _, l := range lines(run) {
		if !strings.HasPrefix(l, cmd) {
			continue
		}
		w := strings.Fields(l)
		if i := slices.Index(w, flag); i >= 0 && i+1 < len(w) {
			return w[i+1]
		}
	}
	return ""
}

// TestWorkflowWithoutTheSecret runs the workflow's bench step with the
// real llmsla as GitHub runs it when the endpoint's secret is unset (an
// empty OPENAI_BASE_URL, the model variable set, a thresholds-only
// sla.yaml): the step fails red with exit 2 naming the variable, and
// records code=2, which the gate step's condition does not run on — never
// a passing run of the built-in simulator that lets the deploy go.
func TestWorkflowWithoutTheSecret(t *testing.T) {
	if testing.Short() {
		t.Skip("builds llmsla")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "llmsla")
	build := exec.Command("go", "build", "-o", bin, "./cmd/llmsla")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sla := filepath.Join(dir, "sla.yaml")
	if err := os.WriteFile(sla, []byte("scenarios:\n  chat:\n    sla: {ttft_p95_ms: 600}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := jobSteps(t, "github-actions.yml", "sla-gate")
	var bench, gate workflowStep
	for _, s := range steps {
		switch {
		case strings.Contains(s.Run, "bin/llmsla bench"):
			bench = s
		case strings.Contains(s.Run, "bin/llmsla gate"):
			gate = s
		}
	}
	script := strings.ReplaceAll(strings.ReplaceAll(bench.Run, "bin/llmsla", bin), "results/", dir+"/")
	out := filepath.Join(dir, "github_output")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "summary.md"),
		"CI=true", "GITHUB_ACTIONS=true", "LLMSLA_CONFIG="+sla,
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "LLMSLA_MODEL=gpt-4o-mini") // what GitHub gives for an unset secret
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "LLMSLA_SIM=") })
	output, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 2 || !strings.Contains(string(output), "OPENAI_BASE_URL is empty or unset") {
		t.Fatalf("bench step: exit %d, want 2 naming OPENAI_BASE_URL:\n%s", code, output)
	}
	if strings.Contains(string(output), "built-in simulator") && strings.Contains(string(output), "All SLAs met") {
		t.Errorf("the simulator was measured:\n%s", output)
	}
	recorded, _ := os.ReadFile(out)
	if string(recorded) != "code=2\n" {
		t.Errorf("recorded %q, want code=2", recorded)
	}
	if !strings.Contains(gate.If, "outputs.code == '0'") || strings.Contains(gate.If, "'2'") {
		t.Errorf("gate step if %q: it must not run after a broken bench", gate.If)
	}
}

// TestGrafanaDashboard: the example dashboard is a Grafana dashboard
// whose every query reads a metric harness/export sends, as Prometheus
// names it behind an OpenTelemetry Collector.
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("grafana-llmsla.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("grafana-llmsla.json: %v", err)
	}
	exported := []string{"llmsla_level_figure", "llmsla_objective_met", "llmsla_objective_margin", "llmsla_objective_value", "llmsla_objective_threshold",
		"gen_ai_client_operation_time_to_first_chunk_seconds", "gen_ai_client_operation_duration_seconds", "gen_ai_client_token_usage"}
	if len(d.Panels) == 0 {
		t.Fatal("no panels")
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if !slices.ContainsFunc(exported, func(m string) bool { return strings.Contains(tg.Expr, m) }) {
				t.Errorf("panel %q queries %q, which reads no metric llmsla exports", p.Title, tg.Expr)
			}
		}
	}
}
