#!/usr/bin/env bash
# Runs the benchmarks and prints the README's tables (see README, "Performance").
# Two `go test -bench` runs: generation in the root module's bench package, and
# every message benchmark (acpgen, the leading Go peer, the baselines) in ONE run
# of the bench/peer module, so its figures compare as ratios.
# Reads the pinned schema from acpgen's schema cache (fetched when missing).
# COUNT (default 5) runs per benchmark; the tables show medians.
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-5}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go version
# The process benchmark runs alone first: a child inherits the peak RSS of
# the process that starts it, so the test binary must still be small then.
go test ./bench -run '^$' -bench 'GenerateProcess' -benchmem -benchtime 2x -count "$count" | tee "$out/generate.txt"
go test ./bench -run '^$' -bench 'Generate$|FormatFloor|Scale|Typecheck' -benchmem -benchtime 2x -count "$count" | tee -a "$out/generate.txt"
(cd bench/peer && go test -run '^$' -bench 'Messages|Interleaved' -benchmem -benchtime 300ms -count "$count") | tee "$out/messages.txt"
go run ./bench/benchtable "$out/generate.txt" "$out/messages.txt"
