#!/usr/bin/env bash
# Runs the benchmarks, commits-ready: the raw `go test -bench` output goes to
# bench/results, and bench/benchtable renders the tables of
# docs/benchmarks.md from those files (TestDocTable checks the two agree).
#
#   bench/run.sh        every benchmark, then the tables
#   bench/run.sh ab     only the A/B of the old and new generated code
#                       (OLD, default 92c6e95; NEW, default HEAD), then the tables
#   bench/run.sh sessions  only the session store's and the resume's, then the tables
#
# Generation runs in the root module's bench package; the bench/peer module
# compiles gen/acp and the leading Go peer in turn (compile time, compiler RSS,
# archive size; instructions under cachegrind when valgrind is installed),
# builds the minimal agent on each (binary size), and runs every message and
# ping-pong benchmark (acpgen, the peer, the baselines) in ONE run, so each
# group's figures compare as ratios. bench/peer/ab is the A/B. inspect.txt is
# acpgen inspect's checker per session/update and the validators it judges
# with (the interpreter, its compiled fallback, the gojsonschema reference).
# Reads the pinned schema from acpgen's schema cache (fetched when missing).
# COUNT (default 5) runs per benchmark; COMPILE_COUNT (default 3) compiles of
# each package; AB_COUNT (default 10) rounds of the A/B's codec benchmarks.
# Results replace bench/results only when every run succeeded.
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-5}"
results=bench/results
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mkdir -p "$results"
go version
start=$SECONDS

ab() {
	(cd bench/peer && go run ./ab -old "${OLD:-92c6e95}" -new "${NEW:-HEAD}" -count "${AB_COUNT:-10}" -o "$out")
}

# The session benchmarks: the stores (PostgreSQL on a throwaway cluster), the
# store agent streaming through each store in turn, interleaved in one run,
# and a resume against a plain reconnect (Streamable HTTP and WebSocket).
sessions() {
	(cd store && go test -run '^$' -bench . -benchmem -count "$count" .) | tee "$out/store.txt"
	(cd store && go test -run '^$' -bench StreamingThroughStore -benchtime 100x -count "$count" ./examples/agent) | tee "$out/store-streaming.txt"
	go test ./runtime/acphttp -run '^$' -bench ResumeAfterCut -benchtime 20x -count "$count" | tee "$out/resume.txt"
}

if [ "${1:-all}" = ab ]; then
	ab
elif [ "${1:-all}" = sessions ]; then
	sessions
else
	# The process benchmark runs alone first: a child inherits the peak RSS of
	# the process that starts it, so the test binary must still be small then.
	go test ./bench -run '^$' -bench 'GenerateProcess' -benchmem -benchtime 2x -count "$count" | tee "$out/generate.txt"
	go test ./bench -run '^$' -bench 'Generate$|FormatFloor|Scale|Typecheck' -benchmem -benchtime 2x -count "$count" | tee -a "$out/generate.txt"
	# The compile benchmark measures the compiler's peak RSS, so it too runs in
	# a test binary of its own.
	(cd bench/peer && go test -run '^$' -bench 'Compile' -benchtime 1x -count "${COMPILE_COUNT:-3}") | tee "$out/build.txt"
	(cd bench/peer && go test -run '^$' -bench 'CompileInstructions' -benchtime 1x -count 1) | tee -a "$out/build.txt"
	(cd bench/peer && go test -run '^$' -bench 'Binary' -benchtime 1x -count 1) | tee -a "$out/build.txt"
	(cd bench/peer && go test -run '^$' -bench 'Messages|Interleaved|PingPong|Notify' -benchmem -benchtime 300ms -count "$count") | tee "$out/messages.txt"
	sessions
	# acpgen inspect's checker and the validators it judges with.
	go test ./inspect ./internal/schemacheck -run '^$' -bench 'ObserveUpdate|Validate' -benchmem -benchtime 300ms -count "$count" | tee "$out/inspect.txt"
	ab
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" >&2
cp "$out"/* "$results"/
go run ./bench/benchtable -w docs/benchmarks.md "$results"
echo "bench: results in $results, tables written into docs/benchmarks.md ($((SECONDS - start)) s)" >&2
