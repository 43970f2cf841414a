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
