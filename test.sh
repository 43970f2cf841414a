#!/usr/bin/env bash
# Runs every test of the repository: vet, then the Go tests (including the
# drift check that regenerates gen/ in memory). Tests read the pinned schema
# from acpgen's schema cache and fetch it with npm when it is missing.
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
# acpgen, its runtime and the generated packages build and vet on Windows too
# (a downstream developer there installs acpgen with `go get -tool`); the
# tests themselves run on this machine's platform only.
GOOS=windows go vet ./...
# Every Go file, hand-written or generated, is gofmt-clean.
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "test.sh: not gofmt-clean (run gofmt -w):" $unformatted >&2
	exit 1
fi
# inspect's report test renders its page in headless Chromium (Debian's
# package). Installed when missing and this user may (root, or sudo without
# a password); otherwise that test skips, and fails under CI=true.
if ! command -v chromium >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		apt-get update -q && apt-get install -y -q chromium
	elif sudo -n true 2>/dev/null; then
		sudo -n apt-get update -q && sudo -n apt-get install -y -q chromium
	fi
fi
# The session store's tests run a throwaway PostgreSQL cluster (Debian's
# postgresql: initdb and postgres from /usr/lib/postgresql/*/bin, as an
# unprivileged user), and the fleet test HAProxy. Installed when missing and
# this user may, waiting for another apt or dpkg to let go of its lock; an
# install that fails does not stop this script: the tests that need the
# engine skip, and fail under CI=true.
apt_install() {
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		sudo -n true 2>/dev/null || return 0
		sudo=(sudo -n)
	fi
	"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update -q &&
		"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y -q "$@" ||
		echo "test.sh: could not install $*; the tests that need it skip (and fail under CI=true)" >&2
}
missing=()
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}"
fi
# The interop tests run the official TypeScript SDK, pinned by interop/package-lock.json.
npm ci --prefix interop --ignore-scripts --no-audit --no-fund --loglevel=error
go test -count=1 -timeout 30m ./...
# The otel module (OpenTelemetry tracing) is a module of its own, which ./...
# does not reach.
(cd otel && go vet ./... && GOOS=windows go vet ./... && go test -count=1 ./...)
# The store module (the SQLite and PostgreSQL session stores, their SQL
# drivers) is a module of its own too; its race run covers the conformance
# suite and the committer.
(cd store && go vet ./... && GOOS=windows go vet ./... && go test -count=1 ./... &&
	go test -race -count=1 -run 'TestSQLite$|TestPostgres$|TestCloseStore|TestSharedPostgres|TestRetention' ./...)
# The mcp module (MCP over ACP on the official Go MCP SDK) likewise; its
# interop tests run the TypeScript SDK installed above.
(cd mcp && go vet ./... && GOOS=windows go vet ./... && go test -count=1 ./... && go test -race -count=1 ./...)
# The race detector on a subset that runs in bounded time: the hand-written
# runtime and the examples, and the dispatcher tests of every generated
# channel (the full generated suites take minutes under -race; -short skips
# the long ones).
go test -race -count=1 ./runtime/... ./examples/...
go test -race -short -count=1 -run 'Dispatch|Conn' ./gen/acp/...
go test -race -count=1 -run 'TestConcurrentUse|TestOutsideTheSubset|TestMalformedGoesToReference' ./internal/schemacheck
# Fuzzing, a few seconds per target (Go takes one -fuzz target per run). Seed
# corpora are in each package's testdata/fuzz; a finding fails the run and is
# written there, so plain `go test` replays it.
#
# Go 1.26's fuzz coordinator can fail a run at the end of -fuzztime with a
# bare "context deadline exceeded" and no failing input (a race between its
# deadline and its workers' context, not a finding). A run that failed in
# exactly that shape, the target's FAIL line followed by that one message and
# no "Failing input written to", is run once more; any other failure, and a
# second failure, fails the script.
fuzz_once() { go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "${FUZZTIME:-3s}" -fuzzminimizetime 2s 2>&1; }
coordinator_timeout() { # $1: output, $2: target
	grep -q "^--- FAIL: $2 (" <<<"$1" &&
		grep -A1 "^--- FAIL: $2 (" <<<"$1" | tail -n 1 | grep -qx '    context deadline exceeded' &&
		! grep -q 'Failing input written to' <<<"$1"
}
fuzz() {
	local out
	if out=$(fuzz_once "$1" "$2"); then
		printf '%s\n' "$out"
		return 0
	fi
	printf '%s\n' "$out"
	if coordinator_timeout "$out" "$2"; then
		echo "test.sh: $2 failed with the fuzz coordinator's deadline race and no failing input; running it once more" >&2
		fuzz_once "$1" "$2"
		return
	fi
	return 1
}
for t in FuzzContentBlock FuzzSessionUpdate FuzzMCPServer FuzzRequestPermissionOutcome FuzzElicitation FuzzDispatch FuzzColdTypes; do
	fuzz ./gen/acp "$t"
done
fuzz ./gen/acp/unstable FuzzUnions
fuzz ./runtime/jsonrpc FuzzParse
fuzz ./runtime/jsonrpc FuzzConn
fuzz ./generator/overlay FuzzOverlay
fuzz ./runtime/acphttp FuzzHandler
fuzz ./runtime/router FuzzInitialize
fuzz ./runtime/roots FuzzResolve
fuzz ./runtime/session FuzzTopMember
fuzz ./internal/schemacheck FuzzVerdicts
fuzz ./internal/anyjson FuzzAgreesWithEncodingJSON
fuzz ./inspect FuzzFastParse
