#!/usr/bin/env bash
# Runs the benchmarks and writes their tables into docs/benchmarks.md.
# Generation runs in the root module's bench package; the bench/peer module
# compiles gen/acp and the leading Go peer in turn (compile time, compiler RSS),
# builds the minimal agent on each (binary size), and runs every message and
# ping-pong benchmark (acpgen, the peer, the baselines) in ONE run, so each
# group's figures compare as ratios.
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
# The compile benchmark measures the compiler's peak RSS, so it too runs in a
# test binary of its own. COMPILE_COUNT (default 3) compiles of each package.
(cd bench/peer && go test -run '^$' -bench 'Compile' -benchtime 1x -count "${COMPILE_COUNT:-3}") | tee "$out/build.txt"
(cd bench/peer && go test -run '^$' -bench 'Binary' -benchtime 1x -count 1) | tee -a "$out/build.txt"
(cd bench/peer && go test -run '^$' -bench 'Messages|Interleaved|PingPong' -benchmem -benchtime 300ms -count "$count") | tee "$out/messages.txt"
go run ./bench/benchtable -w docs/benchmarks.md "$out/generate.txt" "$out/messages.txt" "$out/build.txt"
echo "bench: tables written into docs/benchmarks.md" >&2
