// An ACP agent written with the official TypeScript SDK's agent side, on
// stdio, for acpgen's Go example client (examples/client) to drive. It
// behaves like examples/agent as far as the TypeScript SDK allows: prompt
// words are streamed back as agent_message_chunk updates, "wait" blocks the
// turn until session/cancel, session roots are echoed in session/new's _meta,
// and "_acpgen/history" returns the recorded turns. It does not advertise
// runtimeContext: the SDK's schema has no such member and strips it from
// session/prompt params, so advertising it would be a false promise.
//
// Usage: node ts-agent.mjs   (logs go to stderr)
import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

const sessions = new Map();
let nextId = 0;

function session(id) {
  const s = sessions.get(id);
  if (!s) {
    throw acp.RequestError.sessionNotFound(id);
  }
  return s;
}

const app = acp
  .agent({ name: "acpgen-interop-ts-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "typescript-sdk-agent", version: "2.4.0" },
    agentCapabilities: { sessionCapabilities: { additionalDirectories: {} } },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const roots = [params.cwd, ...(params.additionalDirectories ?? [])];
    const sessionId = `ts-${++nextId}`;
    sessions.set(sessionId, { roots, history: [], cancel: null });
    return { sessionId, _meta: { "acpgen/roots": roots } };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const s = session(params.sessionId);
    s.history.push(params);
    let cancelled = false;
    const cancel = new Promise((resolve) => {
      s.cancel = () => {
        cancelled = true;
        resolve();
      };
    });
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
          await client.notify(acp.methods.client.session.update, {
            sessionId: params.sessionId,
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: sep + word },
            },
          });
          sep = " ";
        }
      }
      return { stopReason: "end_turn" };
    } finally {
      s.cancel = null;
    }
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

const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
