# llmsla: the two commands are `make bench` (the main job) and `make test`.
GO ?= go
COUNT ?= 10
N ?= 20

.PHONY: bench test vet gate baseline sim ollama clean

## bench: measure the configured endpoints (the built-in simulator when none
## is configured), record results/, print the SLA verdicts; exit 1 on a
## violated SLA.
bench:
	$(GO) run ./cmd/llmsla bench -count $(COUNT) -n $(N)

## test: vet and run every test (the Ollama tests skip without an ollama
## binary locally, and fail under CI=true).
# The places ollamatest.Binary looks, in its order.
GOBIN_DIR = $(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)
OLLAMA_BIN = $(or $(LLMSLA_OLLAMA),$(wildcard $(GOBIN_DIR)/ollama),$(shell command -v ollama 2>/dev/null))
test: vet
	$(GO) test -p 1 -count=1 -timeout 20m ./...
	@[ -n "$(OLLAMA_BIN)" ] || echo "note: the TestOllama… tests were skipped: no ollama binary. \`make ollama\` builds v0.11.4 (~4 min); the test model is in fixtures/models."

vet:
	$(GO) vet ./...

## gate: compare the latest run with the baseline; exit 1 on a regression.
gate:
	$(GO) run ./cmd/llmsla gate golden/baseline.txt results/latest.txt

## baseline: promote the latest run, if it met its SLAs, to golden/baseline.txt.
baseline:
	$(GO) run ./cmd/llmsla baseline

## sim: serve the built-in simulator on 127.0.0.1:8080.
sim:
	$(GO) run ./cmd/llmsla sim

## ollama: build ollama v0.11.4 for the real-endpoint tests.
ollama:
	bash .ci/install-ollama.sh

clean:
	rm -rf results
