// The official TypeScript SDK's experimental ACP v2 client driving acpgen's
// Go example agent (examples/agent), over stdio or, with the SDK's network
// clients (experimental/ws-client and experimental/http-client), over the
// endpoint of `agent -listen`, or, with fd, over two pipes its parent hands
// it (it reads file descriptor 3 and writes 4: a chain of Go proxies in the
// interop test's process). The agent serves v1 and v2 behind
// runtime/router; this client requests protocol version 2. Every step
// checks its result, prints "ok STEP: details" on stdout, and the first
// failure prints "FAIL STEP: reason" on stderr and exits with status 1.
//
// Usage: node ts-v2-client.mjs AGENT_BINARY CWD ADDITIONAL_DIR...
//        node ts-v2-client.mjs ws|http URL TOKEN CWD ADDITIONAL_DIR...
//        node ts-v2-client.mjs fd CWD ADDITIONAL_DIR...
// (every directory absolute)
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { spawn } from "node:child_process";
import { Socket } from "node:net";
import { Readable, Writable } from "node:stream";
import { isDeepStrictEqual } from "node:util";
import { WebSocket } from "ws";
import { StepFailure, ok, check, expectError, next } from "./steps.mjs";

const args = process.argv.slice(2);
const profile = ["ws", "http", "fd"].includes(args[0]) ? args.shift() : null;
const network = profile === "ws" || profile === "http";
const [url, token] = network ? args.splice(0, 2) : [];
const [agentPath, cwd, ...additionalDirectories] = profile ? [null, ...args] : args;
if ((network ? !url : !profile && !agentPath) || !cwd || additionalDirectories.length === 0) {
  console.error("usage: node ts-v2-client.mjs AGENT_BINARY CWD ADDITIONAL_DIR...");
  console.error("       node ts-v2-client.mjs ws|http URL TOKEN CWD ADDITIONAL_DIR...");
  console.error("       node ts-v2-client.mjs fd CWD ADDITIONAL_DIR...");
  process.exit(2);
}

// describe names one queued message: "user_message user-1 text:hi", "running",
// "chunk:hello", "idle:end_turn".
function describe(m) {
  if (m.kind === "stop") {
    return `idle:${m.stopReason}`;
  }
  const u = m.update;
  switch (u.sessionUpdate) {
    case "user_message":
      return `user_message ${u.messageId} ${(u.content ?? []).map((c) => `${c.type}:${c.text}`).join(",")}`;
    case "state_update":
      return u.state;
    case "agent_message_chunk":
      return `chunk:${u.content.type === "text" ? u.content.text : u.content.type}`;
    default:
      return u.sessionUpdate;
  }
}

// turn reads the session's messages up to and including the next idle.
async function turn(step, session) {
  const got = [];
  for (;;) {
    const m = await next(step, session);
    got.push(describe(m));
    if (m.kind === "stop") {
      return got;
    }
  }
}

// connect opens the stream to the agent: a child process's stdio, or a
// network connection, or file descriptors 3 and 4. exited resolves with the
// child's exit status.
function connect() {
  if (profile === "fd") {
    const output = new Socket({ fd: 4, readable: false, writable: true });
    const input = new Socket({ fd: 3, readable: true, writable: false });
    const stream = acp.ndJsonStream(Writable.toWeb(output), Readable.toWeb(input));
    return { stream, close: () => {}, kill: () => {} };
  }
  if (profile) {
    const headers = { Authorization: `Bearer ${token}` };
    const stream = profile === "ws" ? createWebSocketStream(url, { WebSocket, headers }) : createHttpStream(url, { headers });
    // connectWith closes the connection when the flow ends.
    return { stream, close: () => {}, kill: () => {} };
  }
  const child = spawn(agentPath, [], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.on("error", (e) => {
    console.error(`FAIL spawn: ${e.message}`);
    process.exit(1);
  });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { stream, exited, close: () => child.stdin.end(), kill: () => child.kill() };
}

const { stream, exited, close, kill } = connect();
const app = acp.client({ name: "acpgen-interop-ts-v2-client" });

async function flow(ctx) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "typescript-sdk-v2-client", version: "2.4.0" },
    capabilities: {},
  });
  check("initialize", acp.PROTOCOL_VERSION === 2, `the SDK's v2 PROTOCOL_VERSION is ${acp.PROTOCOL_VERSION}`);
  check("initialize", init.protocolVersion === 2, `protocolVersion ${init.protocolVersion}`);
  check("initialize", init.capabilities?.session?.additionalDirectories != null, "additionalDirectories not advertised");
  ok("initialize", `protocolVersion=${init.protocolVersion} agent=${init.info.name} additionalDirectories advertised`);

  const session = await ctx.buildSession(cwd).withAdditionalDirectories(additionalDirectories).start();
  const roots = [cwd, ...additionalDirectories];
  check("session/new", isDeepStrictEqual(session.meta?.["acpgen/roots"], roots), `roots ${JSON.stringify(session.meta)}, want ${JSON.stringify(roots)}`);
  ok("session/new", `sessionId=${session.sessionId} roots=${roots.join(",")} meta=${Object.keys(session.meta ?? {}).sort().join(",")}`);
  const sessionId = session.sessionId;

  // The response acknowledges insertion; the turn is reported by updates.
  const res = await session.prompt("hello streamed world");
  check("session/prompt", typeof res.messageId === "string" && res.messageId !== "", `response ${JSON.stringify(res)}`);
  const got = await turn("session/prompt", session);
  const want = [
    `user_message ${res.messageId} text:hello streamed world`,
    "running",
    "chunk:hello",
    "chunk: streamed",
    "chunk: world",
    "idle:end_turn",
  ];
  check("session/prompt", isDeepStrictEqual(got, want), `updates ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  ok("session/prompt", `messageId=${res.messageId} updates=${JSON.stringify(got)}`);

  // The SDK's own reader: agent text until the next idle.
  const [, text] = await Promise.all([session.prompt("one two three"), session.readTextUntilIdle()]);
  check("session/prompt text", text === "one two three", `read ${JSON.stringify(text)}`);
  ok("session/prompt text", `readTextUntilIdle=${JSON.stringify(text)}`);

  // session/cancel mid-turn: "wait" blocks the agent until cancelled.
  const waiting = await session.prompt("before wait after");
  const head = [];
  while (head.at(-1) !== "chunk:before") {
    head.push(describe(await next("session/cancel", session)));
    check("session/cancel", head.length <= 3, `updates ${JSON.stringify(head)} before the first chunk`);
  }
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  const tail = await turn("session/cancel", session);
  check("session/cancel", isDeepStrictEqual(tail, ["idle:cancelled"]), `after the cancel the agent sent ${JSON.stringify(tail)}`);
  ok("session/cancel", `messageId=${waiting.messageId} stopReason=cancelled after streaming "before"`);

  const bad = await expectError(
    "invalid params",
    -32602,
    ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text" }] }),
  );
  check("invalid params", JSON.stringify(bad.data ?? "").includes("/prompt/0"), `error data ${JSON.stringify(bad.data)} names no pointer`);
  ok("invalid params", `session/prompt without text answered -32602: ${bad.message}`);
  session.dispose();
}

const deadline = setTimeout(() => {
  console.error("FAIL timeout: the flow took more than 30 s");
  kill();
  process.exit(1);
}, 30_000);

try {
  await app.connectWith(stream, flow);
} catch (e) {
  console.error(`FAIL ${e.step ?? "flow"}: ${e.message ?? e}`);
  kill();
  process.exit(1);
}
close();
clearTimeout(deadline);
if (exited) {
  const { code, signal } = await exited;
  if (code !== 0) {
    console.error(`FAIL exit: agent exited with ${code ?? signal}`);
    process.exit(1);
  }
  ok("exit", "agent exited with status 0");
} else {
  ok("exit", `${profile} profile done`);
}
process.exit(0);
