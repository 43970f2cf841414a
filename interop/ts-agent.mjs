// An ACP agent written with the official TypeScript SDK's agent side, on
// stdio, for acpgen's Go example client (examples/client) to drive. It
// behaves like examples/agent as far as the TypeScript SDK allows: prompt
// words are streamed back as agent_message_chunk updates, "wait" blocks the
// turn until session/cancel, session roots are echoed in session/new's _meta,
// and "_acpgen/history" returns the recorded turns. Two words call back the
// client: "permission" asks session/request_permission (options allow_once,
// allow_always, reject_once) and streams "permission:OPTION_ID" (or
// "permission:cancelled"); "read" asks fs/read_text_file for notes.txt in
// the session's cwd and streams "read:CONTENT". A turn waiting on "wait" also
// ends, stopReason cancelled, when the client cancels the request itself
// ($/cancel_request). It does not advertise
// runtimeContext: the SDK's schema has no such member and strips it from
// session/prompt params, so advertising it would be a false promise.
//
// session/load (advertised) replays a session's whole conversation (the
// prompts as user_message_chunk, the replies as agent_message_chunk);
// sessions outlive a connection.
//
// With --listen, it serves ACP over the network instead with the SDK's
// AcpServer (experimental/server): Streamable HTTP and, through the `ws`
// package, WebSocket, both at /acp on 127.0.0.1; it prints
// "listening on http://127.0.0.1:PORT/acp" and requires
// "Authorization: Bearer TOKEN" when given --token TOKEN.
//
// Usage: node ts-agent.mjs [--listen [--token TOKEN]]   (logs go to stderr)
import * as acp from "@agentclientprotocol/sdk";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { createServer } from "node:http";
import { Readable, Writable } from "node:stream";
import { WebSocketServer } from "ws";

const sessions = new Map();
let nextId = 0;

function session(id) {
  const s = sessions.get(id);
  if (!s) {
    throw acp.RequestError.sessionNotFound(id);
  }
  return s;
}

// callBack runs the client call a prompt word asks for and returns the text
// to stream for it: the word itself when it asks for none.
async function callBack(client, s, sessionId, word) {
  if (word === "permission") {
    const res = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId: "call-1", title: "read notes.txt", kind: "read", status: "pending" },
      options: [
        { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
        { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
        { optionId: "reject-once", name: "Reject", kind: "reject_once" },
      ],
    });
    const outcome = res.outcome;
    return `permission:${outcome.outcome === "selected" ? outcome.optionId : outcome.outcome}`;
  }
  if (word === "read") {
    const res = await client.request(acp.methods.client.fs.readTextFile, { sessionId, path: `${s.roots[0]}/notes.txt` });
    return `read:${res.content}`;
  }
  return word;
}

const app = acp
  .agent({ name: "acpgen-interop-ts-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "typescript-sdk-agent", version: "2.4.0" },
    agentCapabilities: { loadSession: true, sessionCapabilities: { additionalDirectories: {} } },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const roots = [params.cwd, ...(params.additionalDirectories ?? [])];
    const sessionId = `ts-${++nextId}`;
    sessions.set(sessionId, { roots, history: [], conversation: [], cancel: null });
    return { sessionId, _meta: { "acpgen/roots": roots } };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
    const s = session(params.sessionId);
    s.history.push(params);
    for (const block of params.prompt) {
      if (block.type === "text") {
        s.conversation.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: block.text } });
      }
    }
    let cancelled = false;
    const cancel = new Promise((resolve) => {
      s.cancel = () => {
        cancelled = true;
        resolve();
      };
    });
    signal.addEventListener("abort", () => s.cancel?.(), { once: true });
    try {
      let sep = "";
      for (const block of params.prompt) {
        if (block.type !== "text") {
          continue;
        }
        for (const word of block.text.split(/\s+/).filter(Boolean)) {
          if (word === "wait") {
            await cancel;
          }
          if (cancelled) {
            return { stopReason: "cancelled" };
          }
          const text = await callBack(client, s, params.sessionId, word);
          const update = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: sep + text } };
          s.conversation.push(update);
          await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
          sep = " ";
        }
      }
      return { stopReason: "end_turn" };
    } finally {
      s.cancel = null;
    }
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    // v1: the whole conversation, the prompts and the replies, in order.
    const s = session(params.sessionId);
    for (const update of s.conversation) {
      await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
    }
    return {};
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.cancel?.();
  })
  .onRequest(
    "_acpgen/history",
    (p) => {
      if (typeof p?.sessionId !== "string") {
        throw acp.RequestError.invalidParams(undefined, 'want {"sessionId": string}');
      }
      return p;
    },
    ({ params }) => ({ turns: session(params.sessionId).history }),
  );

const args = process.argv.slice(2);
if (args[0] === "--listen") {
  const token = args[1] === "--token" ? args[2] : undefined;
  const server = new AcpServer({ agent: app });
  const handleHttp = createNodeHttpHandler(server);
  const wss = new WebSocketServer({ noServer: true });
  const handleUpgrade = createNodeWebSocketUpgradeHandler(server, wss);
  const authorized = (req) => !token || req.headers.authorization === `Bearer ${token}`;
  const http = createServer((req, res) => {
    if (new URL(req.url, "http://x").pathname !== "/acp") {
      res.writeHead(404).end();
    } else if (!authorized(req)) {
      res.writeHead(401).end("Unauthorized");
    } else {
      handleHttp(req, res);
    }
  });
  http.on("upgrade", (req, socket, head) => {
    if (new URL(req.url, "http://x").pathname !== "/acp" || !authorized(req)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    handleUpgrade(req, socket, head);
  });
  http.listen(0, "127.0.0.1", () => {
    console.log(`listening on http://127.0.0.1:${http.address().port}/acp`);
  });
  const stop = async () => {
    await server.close();
    http.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} else {
  const connection = app.connect(
    acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
  );
  await connection.closed;
}
