#!/usr/bin/env bash
# Instructions per request of full dispatch and of the ping-pong, for this
# checkout and a baseline (default 9e9dffc, before the single-pass dispatch),
# against what they are compared with: decode+Validate+encode of the same
# message (BenchmarkMessages' acpgen-decode+validate+encode) and the floor of
# reading a line and writing one (BenchmarkPingPong's floor). Instruction
# counts, because wall time on a shared 2-core machine scatters more than the
# differences measured: each benchmark runs under cachegrind (GOGC=off,
# GOMAXPROCS=1) at two iteration counts, and the difference divided by the
# extra iterations is one request's instructions, setup cancelled out.
# GOGC=off leaves the collector's share out: allocations are counted apart
# (-benchmem in bench/results/messages.txt).
#
#	bench/peer/dispatchir/run.sh [baseline-ref]   (needs valgrind; writes nothing in the repository)
set -euo pipefail
base=${1:-9e9dffc}
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add -q --detach "$tmp/old" "$base"
(cd "$tmp/old/bench/peer" && go test -c -o "$tmp/old.test" .)
(cd "$here" && go test -c -o "$tmp/new.test" .)
ir() { # binary, benchmark -> instructions per iteration
	local a b
	a=$(GODEBUG=cpu.rdtscp=off GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$1" -test.run '^$' -test.bench "$2" -test.benchtime 5000x 2>&1 | grep -E 'I +refs' | tr -d , | awk '{print $NF}')
	b=$(GODEBUG=cpu.rdtscp=off GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$1" -test.run '^$' -test.bench "$2" -test.benchtime 25000x 2>&1 | grep -E 'I +refs' | tr -d , | awk '{print $NF}')
	echo $(((b - a) / 20000))
}
echo "full dispatch, instructions per frame: message  decode+Validate+encode  dispatch($base)  dispatch($(git -C "$root" rev-parse --short HEAD)+worktree)  overhead(base)  overhead(new)"
for m in session_new prompt update; do
	c=$(ir "$tmp/new.test" "Messages/$m/acpgen-decode\\+validate\\+encode\$")
	o=$(ir "$tmp/old.test" "Messages/$m/acpgen-dispatch\$")
	n=$(ir "$tmp/new.test" "Messages/$m/acpgen-dispatch\$")
	awk -v m="$m" -v c="$c" -v o="$o" -v n="$n" 'BEGIN { printf "%-12s %8d %8d %8d %+6.0f%% %+6.0f%%\n", m, c, o, n, (o / c - 1) * 100, (n / c - 1) * 100 }'
done
echo "ping-pong, instructions per request: message  floor  acpgen($base)  acpgen(new)  ratio to the floor(base)  ratio(new)"
for m in session_new prompt; do
	f=$(ir "$tmp/new.test" "PingPong/$m/floor\$")
	o=$(ir "$tmp/old.test" "PingPong/$m/acpgen\$")
	n=$(ir "$tmp/new.test" "PingPong/$m/acpgen\$")
	awk -v m="$m" -v f="$f" -v o="$o" -v n="$n" 'BEGIN { printf "%-12s %8d %8d %8d %6.1f %6.1f\n", m, f, o, n, o / f, n / f }'
done
