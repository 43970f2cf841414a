// The official TypeScript SDK's client side driving acpgen's Go example
// agent (examples/agent) over stdio. Every step checks its result, prints
// "ok STEP: details" on stdout, and the first failure prints
// "FAIL STEP: reason" on stderr and exits with status 1.
//
// Usage: node ts-client.mjs AGENT_BINARY CWD ADDITIONAL_DIR...
// (every directory absolute)
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { isDeepStrictEqual } from "node:util";
import { StepFailure, ok, check, expectError, next } from "./steps.mjs";

const [agentPath, cwd, ...additionalDirectories] = process.argv.slice(2);
if (!agentPath || !cwd || additionalDirectories.length === 0) {
  console.error("usage: node ts-client.mjs AGENT_BINARY CWD ADDITIONAL_DIR...");
  process.exit(2);
}

function chunkText(step, message) {
  check(
    step,
    message.kind === "session_update" &&
      message.update.sessionUpdate === "agent_message_chunk" &&
      message.update.content.type === "text",
    `got ${JSON.stringify(message)}, want an agent_message_chunk with text`,
  );
  return message.update.content.text;
}

const child = spawn(agentPath, [], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
child.on("error", (e) => {
  console.error(`FAIL spawn: ${e.message}`);
  process.exit(1);
});

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const app = acp.client({ name: "acpgen-interop-ts-client" });

async function flow(ctx) {
  // Requests before initialize are refused.
  await expectError("before initialize", -32600, ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] }));
  ok("before initialize", "session/new answered -32600");

  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "typescript-sdk-client", version: "2.4.0" },
  });
  const caps = init.agentCapabilities?.sessionCapabilities ?? {};
  check("initialize", init.protocolVersion === 1, `protocolVersion ${init.protocolVersion}`);
  check("initialize", caps.additionalDirectories != null, "additionalDirectories not advertised");
  check("initialize", caps.runtimeContext != null, "runtimeContext not advertised");
  ok("initialize", `protocolVersion=${init.protocolVersion} agent=${init.agentInfo?.name} additionalDirectories and runtimeContext advertised`);

  // The RFD requires absolute roots: the Go dispatcher rejects what the
  // TypeScript SDK would pass through.
  await expectError("relative cwd", -32602, ctx.request(acp.methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }));
  await expectError(
    "relative root",
    -32602,
    ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [], additionalDirectories: ["relative/dir"] }),
  );
  ok("relative roots", "session/new with a relative cwd or additional directory answered -32602");

  const session = await ctx.buildSession(cwd).withAdditionalDirectories(additionalDirectories).start();
  const roots = [cwd, ...additionalDirectories];
  check("session/new", isDeepStrictEqual(session.meta?.["acpgen/roots"], roots), `roots ${JSON.stringify(session.meta)}, want ${JSON.stringify(roots)}`);
  ok("session/new", `sessionId=${session.sessionId} roots=${roots.join(",")}`);
  const sessionId = session.sessionId;

  // runtimeContext is not in the SDK's types: sent with the raw request. The
  // updates are queued on the session before the response resolves.
  const res = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "hello streamed world" }],
    runtimeContext: [{ title: "editor", text: "open file: main.go, line 12" }],
  });
  check("session/prompt", res.stopReason === "end_turn", `stopReason ${res.stopReason}`);
  const want = ["context: editor\n", "hello", " streamed", " world"];
  const got = [];
  for (let i = 0; i < want.length; i++) {
    got.push(chunkText("session/prompt", await next("session/prompt", session)));
  }
  check("session/prompt", isDeepStrictEqual(got, want), `chunks ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  ok("session/prompt", `stopReason=end_turn with runtimeContext, chunks=${JSON.stringify(got)}`);

  // The SDK's own prompt helper: text chunks until the stop message.
  const [text, plain] = await Promise.all([session.readText(), session.prompt("one two three")]);
  check("session/prompt plain", text === "one two three" && plain.stopReason === "end_turn", `read ${JSON.stringify(text)}, ${plain.stopReason}`);
  ok("session/prompt plain", `readText=${JSON.stringify(text)} stopReason=${plain.stopReason}`);

  // session/cancel mid-turn: "wait" blocks the agent until cancelled.
  const turn = session.prompt("before wait after");
  const first = chunkText("session/cancel", await next("session/cancel", session));
  check("session/cancel", first === "before", `first chunk ${JSON.stringify(first)}`);
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  const cancelled = await turn;
  const stop = await next("session/cancel", session);
  check("session/cancel", cancelled.stopReason === "cancelled", `stopReason ${cancelled.stopReason}`);
  check("session/cancel", stop.kind === "stop", `after the cancel the agent sent ${JSON.stringify(stop)}`);
  ok("session/cancel", `stopReason=${cancelled.stopReason} after streaming "before"`);

  const bad = await expectError(
    "invalid params",
    -32602,
    ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text" }] }),
  );
  check("invalid params", JSON.stringify(bad.data ?? "").includes("/prompt/0"), `error data ${JSON.stringify(bad.data)} names no pointer`);
  ok("invalid params", `session/prompt without text answered -32602: ${bad.message}`);

  await expectError("unknown method", -32601, ctx.request("session/telepathy", {}));
  ok("unknown method", "answered -32601");

  const history = await ctx.request("_acpgen/history", { sessionId });
  const turns = history.turns ?? [];
  check("history", turns.length === 3, `${turns.length} turns recorded, want 3`);
  check("history", turns.every((t) => !("runtimeContext" in t)), "a turn was recorded with its runtimeContext");
  check("history", turns[0].prompt?.[0]?.text === "hello streamed world", `first turn ${JSON.stringify(turns[0])}`);
  ok("history", `${turns.length} turns recorded, none with runtimeContext`);
  session.dispose();
}

const deadline = setTimeout(() => {
  console.error("FAIL timeout: the flow took more than 30 s");
  child.kill();
  process.exit(1);
}, 30_000);

try {
  await app.connectWith(stream, flow);
} catch (e) {
  console.error(`FAIL ${e.step ?? "flow"}: ${e.message ?? e}`);
  child.kill();
  process.exit(1);
}
// connectWith closed the connection; closing stdin ends the agent.
child.stdin.end();
const { code, signal } = await exited;
clearTimeout(deadline);
if (code !== 0) {
  console.error(`FAIL exit: agent exited with ${code ?? signal}`);
  process.exit(1);
}
ok("exit", "agent exited with status 0");
