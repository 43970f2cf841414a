// An ACP client written with the official TypeScript SDK (unstable entry
// point) that offers an MCP server of @modelcontextprotocol/server to the
// agent over ACP, through the SDK's McpOverAcpProvider and fromMcpServer.
// The agent is acpgen's Go caller (mcp/mcpacp) on this script's stdio;
// mcp/mcpacp/acp1's interop test is that agent.
//
// The server has the tools of the Go test's server: greet {name} answers
// "hello NAME"; progress sends one progress notification (1 of 2, "half
// way") when given a token, then answers "done"; slow sends a "started" progress
// notification, then waits until the request is cancelled and logs
// "slow: aborted" on stderr.
//
// It initializes, registers the server, declares it in session/new only if
// the agent advertised mcpCapabilities.acp (and logs "declared" or
// "not declared"), sends one prompt, then unregisters the server and exits 0 (the agent's
// input stays open until then).
//
// With --v2 it is an ACP v2 client (the SDK's experimental v2 unstable
// entry point): it declares the server when the agent advertised
// capabilities.session.mcp.acp, and logs the prompt's "messageId: ID".
//
// Usage: node ts-mcp-client.mjs [--v2]   (logs go to stderr)
import { fromMcpServer } from "@agentclientprotocol/sdk/experimental/mcp-server";
import { McpServer } from "@modelcontextprotocol/server";
import { Readable, Writable } from "node:stream";
import * as z from "zod/v4";

function tools() {
  const server = new McpServer({ name: "ts-project-tools", version: "1.0.0" });
  server.registerTool("greet", { inputSchema: z.object({ name: z.string() }) }, async ({ name }) => ({
    content: [{ type: "text", text: `hello ${name}` }],
  }));
  server.registerTool("progress", {}, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      await ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken, progress: 1, total: 2, message: "half way" },
      });
    }
    return { content: [{ type: "text", text: "done" }] };
  });
  server.registerTool("slow", {}, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress: 0, message: "started" } });
    }
    const signal = ctx.mcpReq.signal;
    await new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", resolve, { once: true })));
    console.error("slow: aborted");
    throw signal.reason ?? new Error("aborted");
  });
  return server;
}

const v2 = process.argv.includes("--v2");
const acp = await import(v2 ? "@agentclientprotocol/sdk/experimental/v2/unstable" : "@agentclientprotocol/sdk/unstable");
const provider = new acp.McpOverAcpProvider();
const app = acp.client({ name: "acpgen-interop-ts-mcp-client" }).onRequest(acp.methods.client.mcp.message, provider.handleRequest);
const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));

await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(
    acp.methods.agent.initialize,
    v2
      ? { protocolVersion: acp.PROTOCOL_VERSION, info: { name: "ts-mcp-client", version: "2.4.0" }, capabilities: {} }
      : { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} },
  );
  const adapter = fromMcpServer(tools);
  const registration = provider.registerServer(ctx, { name: "ts-project-tools", handler: adapter.handler });
  const advertised = v2 ? init.capabilities?.session?.mcp?.acp != null : init.agentCapabilities?.mcpCapabilities?.acp === true;
  const mcpServers = advertised ? [registration.declaration] : [];
  console.error(advertised ? "declared" : "not declared");
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers });
  const res = await ctx.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: "text", text: "go" }] });
  console.error(v2 ? `messageId: ${res.messageId}` : `stopReason: ${res.stopReason}`);
  await registration.dispose();
  await adapter.close();
});
// The flow is over and the connection closed: stdin, still open, would keep
// node running.
process.exit(0);
