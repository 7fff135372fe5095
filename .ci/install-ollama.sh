#!/usr/bin/env bash
# install-ollama.sh makes an ollama v0.11.4 binary available and prints its
# path as the last line on stdout; everything else goes to stderr.
#
# It reuses $LLMSLA_OLLAMA, $(go env GOPATH)/bin/ollama or an ollama on PATH
# when that binary is v0.11.4, and otherwise builds it from the Go module
# proxy (cgo, CPU only; ~1-3 min on 2 cores, ~6 min on 2 busy ones).
# Running it twice is cheap. In CI:
#
#	export LLMSLA_OLLAMA=$(.ci/install-ollama.sh)
#
# Why not trust `ollama -v` alone: a plain `go install` leaves
# version.Version at its default "0.0.0", and -v first asks a server on
# $OLLAMA_HOST (printing "Warning: could not connect to a running Ollama
# instance" when there is none). The module version stamped into the binary
# (`go version -m`) is the reliable answer; -v is the fallback for binaries
# that were not built by Go tooling we can read.
set -euo pipefail

want=0.11.4
module=github.com/ollama/ollama

log() { printf 'install-ollama: %s\n' "$*" >&2; }

is_wanted() {
	local bin=$1
	[[ -x $bin ]] || return 1
	if go version -m "$bin" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+$module[[:space:]]+v$want([[:space:]]|$)"; then
		return 0
	fi
	# Point -v at a port nobody listens on so that a stray server of another
	# version cannot answer for the client.
	OLLAMA_HOST=127.0.0.1:9 "$bin" -v 2>&1 | grep -Eq "(version is|client version is) $want\b"
}

# go install writes to GOBIN, else the first GOPATH entry's bin.
gobin=$(go env GOBIN)
if [[ -z $gobin ]]; then
	gopath=$(go env GOPATH)
	gobin=${gopath%%:*}/bin
fi
gopath_bin=$gobin/ollama
candidates=()
[[ -n ${LLMSLA_OLLAMA:-} ]] && candidates+=("$LLMSLA_OLLAMA")
candidates+=("$gopath_bin")
if on_path=$(command -v ollama 2>/dev/null); then
	candidates+=("$on_path")
fi

for bin in "${candidates[@]}"; do
	if is_wanted "$bin"; then
		log "reusing $bin"
		printf '%s\n' "$bin"
		exit 0
	fi
	[[ -e $bin ]] && log "ignoring $bin: not ollama v$want"
done

command -v gcc >/dev/null || { log "gcc is required to build ollama (cgo)"; exit 1; }
log "building $module@v$want (this takes a few minutes)"
# -mod=mod: the module zip's go.mod is resolved against the proxy rather than
# a vendor directory. -X stamps the version so `ollama -v` tells the truth.
CGO_ENABLED=1 GOFLAGS=-mod=mod go install \
	-ldflags "-X $module/version.Version=$want" \
	"$module@v$want" >&2

is_wanted "$gopath_bin" || { log "built $gopath_bin but it is not v$want"; exit 1; }
printf '%s\n' "$gopath_bin"
