#!/usr/bin/env bash
# Instructions per capability-gate check, acpgen's table-driven gates (this
# checkout) against the per-method closures they replaced (the A/B baseline,
# the commit before the gate rows became data). Instruction counts, because
# wall time on a shared 2-core machine scatters more than the difference
# measured: each side's BenchmarkGateCheck runs under cachegrind at two
# iteration counts, and the difference divided by the extra iterations is one
# check's instructions, setup cancelled out.
#
#	bench/peer/gateab/run.sh [baseline-ref]   (needs valgrind; writes nothing in the repository)
set -euo pipefail
base=${1:-0f07101}
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add -q --detach "$tmp/old" "$base"
# The baseline predates the benchmark: the same file, decoding with
# encoding/json (the baseline has no wire.DecodeWith; the decoded values are
# the same).
sed -e 's/if err := wire.DecodeWith(m.params, v, acp.TableOf(v), wire.Strict); err != nil {/if err := json.Unmarshal(m.params, v); err != nil {/' \
	-e 's#"github.com/acpgen/acpgen/runtime/wire"#"encoding/json"#' "$here/gates_test.go" >"$tmp/old/bench/peer/gates_test.go"
(cd "$tmp/old/bench/peer" && go test -c -o "$tmp/old.test" .)
(cd "$here" && go test -c -o "$tmp/new.test" .)
ir() { # binary, benchmark, iterations -> instructions
	GODEBUG=cpu.rdtscp=off GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$1" -test.run '^$' -test.bench "$2" -test.benchtime "${3}x" 2>&1 | grep -E 'I +refs' | tr -d , | awk '{print $NF}'
}
echo "message  closures($base)  tables($(git -C "$root" rev-parse --short HEAD)+worktree)  ratio"
for m in session_new prompt update; do
	for s in old new; do
		a=$(ir "$tmp/$s.test" "GateCheck/$m\$" 20000)
		b=$(ir "$tmp/$s.test" "GateCheck/$m\$" 120000)
		eval "$s=$(((b - a) / 100000))"
	done
	awk -v m="$m" -v o="$old" -v n="$new" 'BEGIN { printf "%-12s %8d %8d %6.2f\n", m, o, n, n / o }'
done
