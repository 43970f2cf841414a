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
// Usage: node ts-mcp-agent.mjs [--no-acp] [--listen]   (logs go to stderr)
import * as acp from "@agentclientprotocol/sdk/unstable";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { createServer } from "node:http";
import { Readable, Writable } from "node:stream";
import { WebSocketServer } from "ws";

const advertise = !process.argv.includes("--no-acp");
const mcp = new acp.McpOverAcpCaller({ clientInfo: { name: "ts-mcp-agent", version: "2.4.0" } });
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

const app = acp
  .agent({ name: "acpgen-interop-ts-mcp-agent" })
  .onNotification(acp.methods.agent.mcp.message, mcp.handleNotification)
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "ts-mcp-agent", version: "2.4.0" },
    agentCapabilities: { mcpCapabilities: { acp: advertise } },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `ts-${servers.size + 1}`;
    servers.set(sessionId, (params.mcpServers ?? []).filter(acp.isMcpServerAcp));
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const declared = servers.get(params.sessionId) ?? [];
    const report = declared.length === 0 ? { error: "no acp server declared" } : await scenario(client, declared[0].serverId);
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(report) } },
    });
    return { stopReason: "end_turn" };
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
