# llmsla: the two commands are `make bench` (the main job) and `make test`.
GO ?= go
COUNT ?= 10
N ?= 20
# The benchmarks to run (go test -bench): make bench BENCH='Chat|Extraction'.
BENCH ?= .
# A recorded run to gate the bench against look by look (llmsla bench
# -against, the sequential gate), instead of COUNT runs: make bench
# AGAINST=golden/baseline.txt.
AGAINST ?=
# The command, built first: `go run` would turn every non-zero exit into 1.
LLMSLA = bin/llmsla

.PHONY: bench test test-busy bench-smoke vet gate baseline sim ollama clean $(LLMSLA)

$(LLMSLA):
	@$(GO) build -o $(LLMSLA) ./cmd/llmsla

# say runs a command and, when it fails, says which of llmsla's exit codes
# it was: make then stops with its own "Error N" and exits 2 whatever N is
# (in CI, run bin/llmsla itself to get 0, 1 or 2).
say = $(1); code=$$?; [ $$code = 0 ] || echo "$(2): llmsla exited $$code ($$( [ $$code = 1 ] && echo 'an objective was violated or a figure regressed' || echo 'broken: nothing was judged')); make exits 2 for any failure"; exit $$code

## bench: measure the configured endpoints (the built-in simulator when none
## is configured), record results/, print the SLA verdicts; exit 1 on a
## violated SLA, 2 on a broken run. make bench BENCH=… COUNT=… N=… picks
## the benchmarks, the runs of each and the requests a run; AGAINST=BASE
## records look by look until the sequential gate decides (exit 1: regressed).
bench: $(LLMSLA)
	@$(call say,$(LLMSLA) bench -bench '$(BENCH)' $(if $(AGAINST),-against '$(AGAINST)',-count $(COUNT)) -n $(N),make bench)

## test: vet and run every test (the Ollama tests skip without an ollama
## binary locally, and fail under CI=true). The suites' tests measure the
## built-in simulator when nothing is configured, which under CI llmsla
## does only when asked: LLMSLA_SIM is set (empty: the default spec).
# The places ollamatest.Binary looks, in its order.
GOBIN_DIR = $(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)
OLLAMA_BIN = $(or $(LLMSLA_OLLAMA),$(wildcard $(GOBIN_DIR)/ollama),$(shell command -v ollama 2>/dev/null))
test: vet
	LLMSLA_SIM="$${LLMSLA_SIM-}" $(GO) test -p 1 -count=1 -timeout 20m ./...
	@[ -n "$(OLLAMA_BIN)" ] || echo "note: the TestOllama… tests were skipped: no ollama binary. \`make ollama\` builds v0.11.4 (~4 min); the test model is in fixtures/models."

## test-busy: make test beside two CPU-bound processes, as on a shared CI
## runner: every timing test bounds its assertions by the lateness the
## machine shows while it runs, and must hold here too.
test-busy:
	@sh -c 'while :; do :; done' & a=$$!; sh -c 'while :; do :; done' & b=$$!; \
	trap 'kill $$a $$b' INT TERM; $(MAKE) test; code=$$?; kill $$a $$b; exit $$code

## bench-smoke: the footprint and probe-cost benchmarks, side by side, once
## each (CI runs them after make test): the client's bytes per open stream,
## CPU per request, and the health probe's cost. Figures, not pass/fail.
bench-smoke:
	$(GO) test -run '^$$' -bench 'OpenLoopMemory|ClientCPU' -benchtime 1000x ./harness/stream/
	$(GO) test -run '^$$' -bench ProbeCost -benchtime 400x ./harness/health/

vet:
	$(GO) vet ./...

## gate: compare the latest run with the baseline; exit 1 on a regression.
gate: $(LLMSLA)
	@$(call say,$(LLMSLA) gate golden/baseline.txt results/latest.txt,make gate)

## baseline: promote the latest run, if it met its SLAs, to golden/baseline.txt.
baseline: $(LLMSLA)
	@$(call say,$(LLMSLA) baseline,make baseline)

## sim: serve the built-in simulator on 127.0.0.1:8080.
sim: $(LLMSLA)
	$(LLMSLA) sim

## ollama: build ollama v0.11.4 for the real-endpoint tests.
ollama:
	bash .ci/install-ollama.sh

clean:
	rm -rf results bin
