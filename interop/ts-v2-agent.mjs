// An ACP v2 agent written with the official TypeScript SDK's experimental v2
// agent side, on stdio, for acpgen's generated v2 ClientConn (gen/acp/v2) to
// drive from interop/v2_test.go. It behaves like examples/agent's v2 agent:
// session/prompt answers with the inserted message's messageId, then the
// turn is reported by session/update notifications (the user message echo,
// state running, one agent_message_chunk per word, state idle with a stop
// reason); "wait" blocks the turn until session/cancel (idle, cancelled);
// session roots are echoed in session/new's _meta.
//
// Usage: node ts-v2-agent.mjs   (logs go to stderr)
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { Readable, Writable } from "node:stream";

const sessions = new Map();
let nextId = 0;

const app = acp
  .agent({ name: "acpgen-interop-ts-v2-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "typescript-sdk-v2-agent", version: "2.4.0" },
    capabilities: { session: { additionalDirectories: {} } },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const roots = [params.cwd, ...(params.additionalDirectories ?? [])];
    const sessionId = `ts-${++nextId}`;
    sessions.set(sessionId, { roots, messages: 0, cancel: null });
    return { sessionId, _meta: { "acpgen/roots": roots } };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const s = sessions.get(params.sessionId);
    if (!s) {
      throw acp.RequestError.sessionNotFound(params.sessionId);
    }
    const n = ++s.messages;
    const update = (u) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
    await update({ sessionUpdate: "user_message", messageId: `user-${n}`, content: params.prompt });
    await update({ sessionUpdate: "state_update", state: "running" });
    let cancelled = false;
    const cancel = new Promise((resolve) => {
      s.cancel = () => {
        cancelled = true;
        resolve();
      };
    });
    // The turn runs after the response, which only acknowledges insertion.
    setImmediate(async () => {
      let sep = "";
      try {
        for (const block of params.prompt) {
          if (block.type !== "text") {
            continue;
          }
          for (const word of block.text.split(/\s+/).filter(Boolean)) {
            if (word === "wait") {
              await cancel;
            }
            if (cancelled) {
              return;
            }
            await update({
              sessionUpdate: "agent_message_chunk",
              messageId: `agent-${n}`,
              content: { type: "text", text: sep + word },
            });
            sep = " ";
          }
        }
      } finally {
        s.cancel = null;
        await update({ sessionUpdate: "state_update", state: "idle", stopReason: cancelled ? "cancelled" : "end_turn" });
      }
    });
    return { messageId: `user-${n}` };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.cancel?.();
  });

const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
