// Feeds edge-case frames to the official TypeScript SDK's dispatchers and
// reports what each one did, for interop_test.go to compare with acpgen's
// generated dispatcher on the same frames (see README.md, "Acceptance").
//
// Usage: node ts-accept.mjs CASES.json
//
// CASES.json is an array of {name, side: "agent"|"client", init: bool, frame}.
// Each case gets a fresh connection. An agent-side case first completes
// initialize when init is true. The frame is written as one line; a request
// (it has an "id") reports the response: "ok" or "error CODE". A
// notification reports "handled" when its handler ran and "dropped"
// otherwise. "seen" is the params as the handler received them.
//
// Both apps advertise the same capabilities as the Go side of the test:
// sessionCapabilities.additionalDirectories and nothing else.
import * as acp from "@agentclientprotocol/sdk";
import { readFileSync } from "node:fs";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A connection over in-memory byte streams, written and read line by line.
function wire(app) {
  const toApp = new TransformStream();
  const fromApp = new TransformStream();
  const connection = app.connect(acp.ndJsonStream(fromApp.writable, toApp.readable));
  const writer = toApp.writable.getWriter();
  const reader = fromApp.readable.getReader();
  let buffered = "";
  return {
    connection,
    send: (line) => writer.write(encoder.encode(line + "\n")),
    async receive() {
      for (;;) {
        const i = buffered.indexOf("\n");
        if (i >= 0) {
          const line = buffered.slice(0, i);
          buffered = buffered.slice(i + 1);
          return JSON.parse(line);
        }
        const { value, done } = await reader.read();
        if (done) {
          throw new Error("connection closed");
        }
        buffered += decoder.decode(value, { stream: true });
      }
    },
    close: () => connection.close(),
  };
}

// Runs until the marker notification's handler, then lets pending
// microtasks finish, so every earlier notification has been dispatched.
function markerHandler(state) {
  return [
    "_acpgen/marker",
    (p) => p,
    () => {
      state.marked();
    },
  ];
}

function newAgent(state) {
  const seen = (method) => ({ params }) => {
    state.seen = params;
    state.method = method;
  };
  return acp
    .agent({ name: "accept-agent" })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { sessionCapabilities: { additionalDirectories: {} } },
    }))
    .onRequest(acp.methods.agent.session.new, (c) => {
      seen("session/new")(c);
      return { sessionId: "s" };
    })
    .onRequest(acp.methods.agent.session.prompt, (c) => {
      seen("session/prompt")(c);
      return { stopReason: "end_turn" };
    })
    .onNotification(acp.methods.agent.session.cancel, seen("session/cancel"))
    .onNotification(...markerHandler(state));
}

function newClient(state) {
  return acp
    .client({ name: "accept-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      state.seen = params;
      state.method = "session/update";
    })
    .onNotification(...markerHandler(state));
}

async function runCase(c) {
  const state = { seen: undefined, method: undefined };
  const marked = new Promise((resolve) => {
    state.marked = resolve;
  });
  const app = c.side === "agent" ? newAgent(state) : newClient(state);
  const w = wire(app);
  try {
    if (c.side === "agent" && c.init) {
      await w.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } }));
      const r = await w.receive();
      if (!("result" in r)) {
        throw new Error(`initialize failed: ${JSON.stringify(r)}`);
      }
    }
    await w.send(c.frame);
    let frame;
    try {
      frame = JSON.parse(c.frame);
    } catch {
      frame = undefined;
    }
    let verdict;
    if (frame !== null && typeof frame === "object" && !Array.isArray(frame) && !("id" in frame)) {
      await w.send(JSON.stringify({ jsonrpc: "2.0", method: "_acpgen/marker", params: {} }));
      await marked;
      await new Promise((resolve) => setImmediate(resolve));
      verdict = state.method ? "handled" : "dropped";
    } else {
      const r = await w.receive();
      verdict = "error" in r ? `error ${r.error.code}` : "ok";
    }
    return { name: c.name, verdict, seen: state.seen === undefined ? null : state.seen };
  } finally {
    w.close();
  }
}

const results = [];
// The SDK logs rejected notifications with console.error; keep stdout for
// the results and say which case a log line belongs to.
for (const c of cases) {
  console.error(`# case ${c.name}`);
  results.push(await runCase(c));
}
process.stdout.write(JSON.stringify(results, null, 1) + "\n");
