#!/usr/bin/env bash
# Instructions per streamed update of the store agent's process (the agent
# and its in-process client; not the PostgreSQL server), per store: each
# store's BenchmarkStreamingTurn (store/examples/agent) runs under cachegrind
# at two turn counts, and the difference divided by the extra updates is one
# update's instructions, setup cancelled out. Instruction counts, because the
# wall time of a shared 2-core machine scatters more than the differences
# measured. With a baseline ref, the same benchmark file is run on that ref
# too (it predates BenchmarkStreamingTurn) and the two are compared.
#
#	bench/store-streaming-instructions.sh [baseline-ref]   (needs valgrind and PostgreSQL; writes nothing in the repository)
set -euo pipefail
base=${1:-}
root=$(cd "$(dirname "$0")/.." && git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
agent=store/examples/agent
(cd "$root/store" && go test -c -o "$tmp/new.test" ./examples/agent)
sides=new
if [ -n "$base" ]; then
	mkdir "$tmp/old"
	git -C "$root" archive "$base" | tar -x -C "$tmp/old"
	cp "$root/$agent"/bench_test.go "$root/$agent"/cpu_*_test.go "$tmp/old/$agent/"
	(cd "$tmp/old/store" && go test -c -o "$tmp/old.test" ./examples/agent)
	sides="old new"
fi
ir() { # binary, benchmark, iterations -> instructions
	(cd "$root/$agent" && GODEBUG=cpu.rdtscp=off GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$1" -test.run '^$' -test.bench "$2" -test.benchtime "${3}x" 2>&1) | grep -E 'I +refs' | tr -d , | awk '{print $NF}'
}
echo "instructions per update, agent process (turns of 100 updates; ${base:+$base vs }$(git -C "$root" rev-parse --short HEAD)+worktree)"
for st in memory sqlite postgres; do
	line="$st"
	for s in $sides; do
		a=$(ir "$tmp/$s.test" "StreamingTurn/$st\$" 20)
		b=$(ir "$tmp/$s.test" "StreamingTurn/$st\$" 120)
		line="$line $s $(((b - a) / 10000))"
	done
	echo "$line"
done
