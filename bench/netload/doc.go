// Command netload measures one runtime/acphttp server under load: idle
// connections of both profiles, many sessions streaming session/update at
// once, and the CPU an update costs over each profile against the same
// agent on stdio pipes. The server (and each stdio agent) is a child
// process of its own, so its resident set and CPU time (getrusage) are its
// alone, apart from the driver's clients.
//
//	go run ./bench/netload [-ws 10000] [-http 1000] [-sessions 1000] [-retain off,on] [-profile DIR]
//
// For each resumable-log setting (-retain: off is RetainMessages -1, on
// the default) it starts a server, then:
//
//  1. idle: opens -ws WebSocket connections, initializes them, and reports
//     the server's RSS, Go heap and stacks and goroutines, per connection
//     over the server before them; then the same for -http Streamable HTTP
//     connections, each with its connection stream open.
//  2. stream: on each profile, -sessions sessions (over that profile's
//     connections, round robin) each stream -updates updates, one per
//     -interval, all at once: updates per second, p50/p99 latency (from
//     the agent making an update to the client handling it), lost and
//     reordered updates, and the server's CPU per update.
//  3. flood: -flood-conns connections of each profile, one session each,
//     stream -flood-updates updates as fast as they go, and the same on
//     stdio (one agent process per connection), in -rounds rounds of stdio,
//     WebSocket and Streamable HTTP in turn: agent CPU per update and the
//     collections it ran, and each profile's median over stdio's.
//
// The driver's own CPU per update is reported beside the server's.
//
// -profile DIR saves the server's heap and goroutine profiles at the idle
// point; the server's control port (on stderr) serves pprof, a CPU profile
// included, while it runs. The driver and the server raise their file descriptor limit to
// what the connections need.
//
// It runs on Linux (it reads /proc and getrusage).
package main
