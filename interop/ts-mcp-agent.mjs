// An ACP agent written with the official TypeScript SDK (unstable entry
// point) that calls, through the SDK's McpOverAcpCaller, the MCP server the
// client declared with type "acp" in session/new. acpgen's Go provider
// (mcp/mcpacp) is the client; mcp/mcpacp/acp1's interop test drives it.
//
// Each prompt runs four calls on the first acp server and streams one
// agent_message_chunk whose text is a JSON report of what they returned:
//   greet    tools/call greet {name: "ada"}: the text of the result
//   progress tools/call progress with a progress token: the notifications
//            received before the answer, and the result's text
//   unknown  tools/call no-such-tool: the inner error (an outcome, not a
//            rejection)
//   slow     tools/call slow, aborted once its "started" progress arrives:
//            the rejection's code
//
// It advertises mcpCapabilities.acp unless given --no-acp. With --listen it
// serves ACP over the network with the SDK's AcpServer (Streamable HTTP and,
// through the `ws` package, WebSocket) at /acp on 127.0.0.1, and prints
// "listening on http://127.0.0.1:PORT/acp".
//
// With --v2 it is an ACP v2 agent (the SDK's experimental v2 unstable entry
// point): it advertises capabilities.session.mcp.acp, answers the prompt
// with a messageId and ends the turn with an idle state update.
//
// With --http-bridge the calls go through the SDK's McpOverAcpHttpBridge
// instead: session/new re-exports each acp server as a loopback MCP
// Streamable HTTP endpoint, and the four calls are HTTP POSTs to it (MCP
// 2026-07-28: the inner _meta keys and the matching headers, no
// initialize); the slow call is cancelled by aborting its HTTP request, and
// its report is {"aborted": true}.
//
// Usage: node ts-mcp-agent.mjs [--no-acp] [--listen] [--v2] [--http-bridge]
// (logs go to stderr)
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { createServer } from "node:http";
import { Readable, Writable } from "node:stream";
import { WebSocketServer } from "ws";
import { McpOverAcpHttpBridge } from "@agentclientprotocol/sdk/experimental/mcp-http";

const advertise = !process.argv.includes("--no-acp");
const v2 = process.argv.includes("--v2");
const viaBridge = process.argv.includes("--http-bridge");
const acp = await import(v2 ? "@agentclientprotocol/sdk/experimental/v2/unstable" : "@agentclientprotocol/sdk/unstable");
const clientInfo = { name: "ts-mcp-agent", version: "2.4.0" };
const mcp = new acp.McpOverAcpCaller({ clientInfo });
const bridge = new McpOverAcpHttpBridge(mcp);
const servers = new Map();

function text(outcome) {
  return outcome.result?.content?.[0]?.text;
}

async function scenario(client, serverId) {
  const report = { serverId };
  report.greet = text(await mcp.request(client, serverId, "tools/call", { name: "greet", arguments: { name: "ada" } }));

  const notes = [];
  const progress = await mcp.request(
    client,
    serverId,
    "tools/call",
    { name: "progress", arguments: {}, _meta: { progressToken: "tok-1" } },
    { onNotification: (n) => notes.push({ method: n.method, params: n.params }) },
  );
  report.progress = { result: text(progress), notes };

  report.unknown = await mcp.request(client, serverId, "tools/call", { name: "no-such-tool", arguments: {} });

  const abort = new AbortController();
  try {
    await mcp.request(
      client,
      serverId,
      "tools/call",
      { name: "slow", arguments: {}, _meta: { progressToken: "slow-1" } },
      { signal: abort.signal, onNotification: (n) => n.params?.message === "started" && abort.abort() },
    );
    report.slow = "answered";
  } catch (e) {
    report.slow = { code: e.code ?? null, name: e.name };
  }
  return report;
}

// post sends one MCP request to a bridge endpoint (decl, an http
// declaration) as an MCP 2026-07-28 client does, and returns its JSON-RPC
// response; notifications on the response's event stream go to onNote.
async function post(decl, id, method, params, { onNote, signal } = {}) {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": acp.MCP_PROTOCOL_VERSION,
    "mcp-method": method,
  };
  if (params.name !== undefined) {
    headers["mcp-name"] = params.name;
  }
  for (const h of decl.headers) {
    headers[h.name.toLowerCase()] = h.value;
  }
  const body = { jsonrpc: "2.0", id, method, params: acp.withMcpRequestMeta(params, { clientInfo }) };
  const res = await fetch(decl.url, { method: "POST", headers, body: JSON.stringify(body), signal });
  if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    return await res.json();
  }
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of res.body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
      if (!data) {
        continue;
      }
      const message = JSON.parse(data);
      if (message.id === id && message.method === undefined) {
        return message;
      }
      onNote?.(message);
    }
  }
  throw new Error("the event stream ended without a response");
}

// bridgeScenario runs the four calls over the bridge's endpoint for decl.
async function bridgeScenario(decl, serverId) {
  const report = { serverId };
  report.greet = text(await post(decl, 1, "tools/call", { name: "greet", arguments: { name: "ada" } }));
  const notes = [];
  const progress = await post(
    decl,
    2,
    "tools/call",
    { name: "progress", arguments: {}, _meta: { progressToken: "tok-1" } },
    { onNote: (n) => notes.push({ method: n.method, params: n.params }) },
  );
  report.progress = { result: text(progress), notes };
  const unknown = await post(decl, 3, "tools/call", { name: "no-such-tool", arguments: {} });
  report.unknown = unknown.error ? { error: unknown.error } : { result: unknown.result };
  const abort = new AbortController();
  try {
    await post(
      decl,
      4,
      "tools/call",
      { name: "slow", arguments: {}, _meta: { progressToken: "slow-1" } },
      { signal: abort.signal, onNote: (n) => n.params?.message === "started" && abort.abort() },
    );
    report.slow = "answered";
  } catch (e) {
    report.slow = { aborted: abort.signal.aborted, name: e.name };
  }
  return report;
}

async function run(sessionId, client) {
  const declared = servers.get(sessionId) ?? [];
  if (declared.length === 0) {
    return { error: "no acp server declared" };
  }
  if (viaBridge) {
    return bridgeScenario(declared[0].http, declared[0].serverId);
  }
  return scenario(client, declared[0].serverId);
}

let prompts = 0;
const app = acp
  .agent({ name: "acpgen-interop-ts-mcp-agent" })
  .onNotification(acp.methods.agent.mcp.message, mcp.handleNotification)
  .onRequest(acp.methods.agent.initialize, () =>
    v2
      ? {
          protocolVersion: acp.PROTOCOL_VERSION,
          info: { name: "ts-mcp-agent", version: "2.4.0" },
          capabilities: { session: advertise ? { mcp: { acp: {} } } : {} },
        }
      : {
          protocolVersion: acp.PROTOCOL_VERSION,
          agentInfo: { name: "ts-mcp-agent", version: "2.4.0" },
          agentCapabilities: { mcpCapabilities: { acp: advertise } },
        },
  )
  .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
    const sessionId = `ts-${servers.size + 1}`;
    const declared = (params.mcpServers ?? []).filter(acp.isMcpServerAcp);
    if (viaBridge) {
      const http = await bridge.adaptServers(client, declared);
      servers.set(sessionId, declared.map((d, i) => ({ serverId: d.serverId, http: http[i] })));
    } else {
      servers.set(sessionId, declared);
    }
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const report = await run(params.sessionId, client);
    const n = ++prompts;
    const update = (u) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
    const chunk = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(report) } };
    if (!v2) {
      await update(chunk);
      return { stopReason: "end_turn" };
    }
    await update({ ...chunk, messageId: `agent-${n}` });
    setImmediate(() => update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
    return { messageId: `user-${n}` };
  });

if (process.argv.includes("--listen")) {
  const server = new AcpServer({ agent: app });
  const handleHttp = createNodeHttpHandler(server);
  const handleUpgrade = createNodeWebSocketUpgradeHandler(server, new WebSocketServer({ noServer: true }));
  const atEndpoint = (req) => new URL(req.url, "http://x").pathname === "/acp";
  const http = createServer((req, res) => (atEndpoint(req) ? handleHttp(req, res) : res.writeHead(404).end()));
  http.on("upgrade", (req, socket, head) =>
    atEndpoint(req) ? handleUpgrade(req, socket, head) : socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
  );
  http.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${http.address().port}/acp`));
  const stop = async () => {
    await server.close();
    http.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} else {
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
  await connection.closed;
}
