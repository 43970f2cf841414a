// Package interop tests acpgen's generated Go SDK against the official ACP
// TypeScript SDK (npm @agentclientprotocol/sdk, pinned by package-lock.json):
// each side's client drives the other side's agent over stdio, and both
// dispatchers are fed the same edge-case frames. See docs/interop.md; the tests
// need `npm ci --prefix interop` first, which ./test.sh runs.
package interop
