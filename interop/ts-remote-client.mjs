// The official TypeScript SDK's network clients (experimental/ws-client and
// experimental/http-client) driving acpgen's Go example agent served with
// `agent -listen` (runtime/acphttp). Every step checks its result, prints
// "ok STEP: details" on stdout, and the first failure prints
// "FAIL STEP: reason" on stderr and exits with status 1.
//
// Usage: node ts-remote-client.mjs ws|http URL TOKEN CWD ADDITIONAL_DIR...
import * as acp from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { isDeepStrictEqual } from "node:util";
import { WebSocket } from "ws";
import { StepFailure, ok, check, expectError } from "./steps.mjs";

const [profile, url, token, cwd, ...additionalDirectories] = process.argv.slice(2);
if (!["ws", "http"].includes(profile) || !url || !cwd || additionalDirectories.length === 0) {
  console.error("usage: node ts-remote-client.mjs ws|http URL TOKEN CWD ADDITIONAL_DIR...");
  process.exit(2);
}

function stream() {
  const headers = { Authorization: `Bearer ${token}` };
  return profile === "ws" ? createWebSocketStream(url, { WebSocket, headers }) : createHttpStream(url, { headers });
}

// updates collects session/update notifications; waitFor resolves once n
// have arrived for the session.
const updates = [];
let wake = () => {};
const app = acp.client({ name: "acpgen-interop-ts-remote-client" }).onNotification(
  acp.methods.client.session.update,
  ({ params }) => {
    updates.push(params);
    wake();
  },
);

function texts(sessionId, kind) {
  return updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind)
    .map((u) => u.update.content.text);
}

async function waitFor(step, cond) {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    check(step, Date.now() < deadline, "no matching session update within 10 s");
    await new Promise((resolve) => {
      wake = resolve;
      setTimeout(resolve, 50);
    });
  }
}

async function initialize(ctx, step) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "typescript-sdk-client", version: "2.4.0" },
  });
  check(step, init.protocolVersion === 1, `protocolVersion ${init.protocolVersion}`);
  check(step, init.agentCapabilities?.loadSession === true, "loadSession not advertised");
  check(step, init.agentCapabilities?.sessionCapabilities?.additionalDirectories != null, "additionalDirectories not advertised");
  return init;
}

async function first(ctx) {
  const init = await initialize(ctx, "initialize");
  ok("initialize", `agent=${init.agentInfo?.name} loadSession and additionalDirectories advertised`);

  const created = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [], additionalDirectories });
  const roots = [cwd, ...additionalDirectories];
  check("session/new", isDeepStrictEqual(created._meta?.["acpgen/roots"], roots), `meta ${JSON.stringify(created._meta)}`);
  ok("session/new", `sessionId=${created.sessionId} roots=${roots.join(",")}`);
  const sessionId = created.sessionId;

  const res = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello streamed world" }] });
  const chunks = texts(sessionId, "agent_message_chunk");
  check("session/prompt", res.stopReason === "end_turn", `stopReason ${res.stopReason}`);
  check("session/prompt", isDeepStrictEqual(chunks, ["hello", " streamed", " world"]), `chunks ${JSON.stringify(chunks)} when the answer came`);
  ok("session/prompt", `stopReason=end_turn chunks=${JSON.stringify(chunks)}`);

  const turn = ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "before wait after" }] });
  await waitFor("session/cancel", () => texts(sessionId, "agent_message_chunk").includes("before"));
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  const cancelled = await turn;
  check("session/cancel", cancelled.stopReason === "cancelled", `stopReason ${cancelled.stopReason}`);
  ok("session/cancel", `stopReason=${cancelled.stopReason} after streaming "before"`);

  const bad = await expectError(
    "invalid params",
    -32602,
    ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text" }] }),
  );
  ok("invalid params", `session/prompt without text answered -32602: ${bad.message}`);
  return sessionId;
}

async function reconnect(ctx, sessionId) {
  updates.length = 0;
  await initialize(ctx, "reconnect");
  const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [], additionalDirectories });
  check("session/load", loaded !== undefined, "no answer");
  // Over Streamable HTTP the answer to session/load comes on the connection
  // stream and the replay on the session's, so the replay may trail it.
  // v1: the whole conversation, the agent's replies included.
  const agentSaid = "hello streamed worldbefore";
  await waitFor("session/load", () => texts(sessionId, "user_message_chunk").length >= 2 && texts(sessionId, "agent_message_chunk").join("") === agentSaid);
  const replay = texts(sessionId, "user_message_chunk");
  const want = ["hello streamed world", "before wait after"];
  check("session/load", isDeepStrictEqual(replay, want), `replayed ${JSON.stringify(replay)}, want ${JSON.stringify(want)}`);
  updates.length = 0;
  const res = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] });
  check("session/load", res.stopReason === "end_turn" && isDeepStrictEqual(texts(sessionId, "agent_message_chunk"), ["again"]), "prompt after load failed");
  ok("session/load", `new connection replayed ${replay.length} prompts and the replies and took another turn`);
}

const deadline = setTimeout(() => {
  console.error("FAIL timeout: the flow took more than 30 s");
  process.exit(1);
}, 30_000);

try {
  const sessionId = await app.connectWith(stream(), first);
  await app.connectWith(stream(), (ctx) => reconnect(ctx, sessionId));
} catch (e) {
  console.error(`FAIL ${e.step ?? "flow"}: ${e.stack ?? e}`);
  process.exit(1);
}
clearTimeout(deadline);
ok("exit", `${profile} profile done`);
process.exit(0);
