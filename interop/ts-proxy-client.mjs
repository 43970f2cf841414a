// The official TypeScript SDK's client side driving an agent through a chain
// of acpgen Go proxies (runtime/proxy) that the Go test runs in its own
// process. The client speaks ACP over two pipes the test hands it: it reads
// file descriptor 3 and writes file descriptor 4. The script prints what it
// received; the test knows which proxies the chain holds and checks the
// details. Every step checks what does not depend on the chain, prints
// "ok STEP: details" on stdout, and the first failure prints
// "FAIL STEP: reason" on stderr and exits with status 1.
//
// The client serves session/request_permission (it picks the allow_once
// option and reports the option kinds it was offered) and fs/read_text_file
// (files under the session's cwd). With --tools the agent is asked to call
// both (ts-agent.mjs does for the prompt words "permission" and "read").
//
// Usage: node ts-proxy-client.mjs [--tools] CWD ADDITIONAL_DIR...
// (every directory absolute; CWD holds notes.txt)
import * as acp from "@agentclientprotocol/sdk";
import { readFileSync } from "node:fs";
import { Socket } from "node:net";
import { isAbsolute, relative } from "node:path";
import { Readable, Writable } from "node:stream";
import { isDeepStrictEqual } from "node:util";
import { StepFailure, ok, check, next } from "./steps.mjs";

const args = process.argv.slice(2);
const tools = args[0] === "--tools" ? Boolean(args.shift()) : false;
const [cwd, ...additionalDirectories] = args;
if (!cwd || additionalDirectories.length === 0) {
  console.error("usage: node ts-proxy-client.mjs [--tools] CWD ADDITIONAL_DIR...");
  process.exit(2);
}

// burst is the number of words of the prompt whose updates must all arrive,
// in order, before its response.
const burst = 500;

// Sockets, not file streams: a pipe read through a file stream holds a
// worker thread that keeps the process from exiting.
const output = new Socket({ fd: 4, readable: false, writable: true });
const input = new Socket({ fd: 3, readable: true, writable: false });
const stream = acp.ndJsonStream(Writable.toWeb(output), Readable.toWeb(input));

// offered is the option kinds of each permission request, in order.
const offered = [];

const app = acp
  .client({ name: "acpgen-interop-ts-proxy-client" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    offered.push(params.options.map((o) => o.kind).join(","));
    const once = params.options.find((o) => o.kind === "allow_once");
    return { outcome: once ? { outcome: "selected", optionId: once.optionId } : { outcome: "cancelled" } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    const rel = relative(cwd, params.path);
    if (!isAbsolute(params.path) || rel.startsWith("..") || isAbsolute(rel)) {
      throw acp.RequestError.invalidParams(undefined, `${params.path} is outside ${cwd}`);
    }
    return { content: readFileSync(params.path, "utf8") };
  });

// turn sends a prompt and reads the session's messages up to the stop
// message, which the SDK queues when the response arrives: the texts of the
// chunks that came before the response, and the response.
async function turn(step, session, text) {
  const [res, chunks] = await Promise.all([session.prompt(text), chunksUntilStop(step, session)]);
  return { res, chunks };
}

async function chunksUntilStop(step, session) {
  const chunks = [];
  for (;;) {
    const m = await next(step, session);
    if (m.kind === "stop") {
      return chunks;
    }
    chunks.push(chunkText(step, m));
  }
}

function chunkText(step, m) {
  check(
    step,
    m.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk" && m.update.content.type === "text",
    `got ${JSON.stringify(m)}, want an agent_message_chunk with text`,
  );
  return m.update.content.text;
}

async function flow(ctx) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
    clientInfo: { name: "typescript-sdk-client", version: "2.4.0" },
  });
  check("initialize", init.protocolVersion === 1, `protocolVersion ${init.protocolVersion}`);
  ok("initialize", `protocolVersion=1 agent=${init.agentInfo?.name} loadSession=${init.agentCapabilities?.loadSession ?? "absent"}`);

  const session = await ctx.buildSession(cwd).withAdditionalDirectories(additionalDirectories).start();
  const roots = [cwd, ...additionalDirectories];
  check("session/new", isDeepStrictEqual(session.meta?.["acpgen/roots"], roots), `roots ${JSON.stringify(session.meta)}, want ${JSON.stringify(roots)}`);
  ok("session/new", `roots=${roots.join(",")}`);
  const sessionId = session.sessionId;

  const first = await turn("session/prompt", session, "hello streamed world");
  ok("session/prompt", `stopReason=${first.res.stopReason} chunks=${JSON.stringify(first.chunks)}`);

  // Many updates: every one before the response, in order.
  const words = Array.from({ length: burst }, (_, i) => `w${i}`);
  const big = await turn("burst", session, words.join(" "));
  const want = words.map((w, i) => (i === 0 ? w : ` ${w}`));
  check("burst", isDeepStrictEqual(big.chunks.slice(0, burst), want), `${big.chunks.length} chunks before the response, not the ${burst} words in order`);
  ok("burst", `${burst} updates in order before the response, then ${JSON.stringify(big.chunks.slice(burst))} stopReason=${big.res.stopReason}`);

  if (tools) {
    const t = await turn("permission and read", session, "permission read");
    ok("permission and read", `offered=${JSON.stringify(offered)} chunks=${JSON.stringify(t.chunks)}`);
  }

  // $/cancel_request: the SDK sends it when the request's signal aborts,
  // here once the turn has streamed its first word and waits.
  const abort = new AbortController();
  const req = ctx.request(
    acp.methods.agent.session.prompt,
    { sessionId, prompt: [{ type: "text", text: "before wait" }] },
    { cancellationSignal: abort.signal },
  );
  const head = chunkText("$/cancel_request", await next("$/cancel_request", session));
  check("$/cancel_request", head === "before", `first chunk ${JSON.stringify(head)}`);
  abort.abort();
  let answer;
  try {
    answer = `stopReason=${(await req).stopReason}`;
  } catch (e) {
    check("$/cancel_request", e instanceof acp.RequestError, `got ${e}`);
    answer = `error ${e.code}`;
  }
  ok("$/cancel_request", `answered ${answer}`);

  // session/cancel mid-turn: "wait" blocks the agent until cancelled.
  const [cancelled, chunks] = await Promise.all([
    session.prompt("before wait after"),
    (async () => {
      const got = [chunkText("session/cancel", await next("session/cancel", session))];
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      return got.concat(await chunksUntilStop("session/cancel", session));
    })(),
  ]);
  ok("session/cancel", `stopReason=${cancelled.stopReason} chunks=${JSON.stringify(chunks)}`);
  session.dispose();
}

const deadline = setTimeout(() => {
  console.error("FAIL timeout: the flow took more than 60 s");
  process.exit(1);
}, 60_000);

try {
  await app.connectWith(stream, flow);
} catch (e) {
  console.error(`FAIL ${e.step ?? "flow"}: ${e.message ?? e}`);
  process.exit(1);
}
clearTimeout(deadline);
ok("exit", "connection closed");
process.exit(0);
