#!/usr/bin/env bash
# Runs every test of the repository: vet, then the Go tests (including the
# drift check that regenerates gen/ in memory). Needs the pinned schema, which
# `go run ./cmd/acpgen generate` pulls.
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
# The interop tests run the official TypeScript SDK, pinned by interop/package-lock.json.
npm ci --prefix interop --ignore-scripts --no-audit --no-fund --loglevel=error
go test -count=1 ./...
# Fuzzing, a few seconds per target (Go takes one -fuzz target per run). Seed
# corpora are in each package's testdata/fuzz; a finding fails the run and is
# written there, so plain `go test` replays it.
fuzz() { go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "${FUZZTIME:-3s}" -fuzzminimizetime 2s; }
for t in FuzzContentBlock FuzzSessionUpdate FuzzMCPServer FuzzRequestPermissionOutcome FuzzElicitation FuzzDispatch; do
	fuzz ./gen/acp "$t"
done
fuzz ./gen/acp/unstable FuzzUnions
fuzz ./runtime/jsonrpc FuzzParse
fuzz ./runtime/jsonrpc FuzzConn
fuzz ./generator/overlay FuzzOverlay
