// Feeds frames to the official TypeScript SDK's AgentProtocolRouter and
// reports what it did with each, for interop/v2_test.go to compare with
// runtime/router. The v1 and v2 implementations are stubs that record the
// initialize message the router hands them.
//
// Usage: node ts-router.mjs CASES.json
// CASES.json: [{"name", "versions": [1, 2], "frame": "one line"}]
// Prints a JSON array: [{"name", "verdict", "params"}], verdict one of
// "routed vN" (params: the initialize params the implementation got),
// "error CODE" (the reply) or "ignored" (no reply, not routed).
import { agentProtocolRouter, ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { readFileSync } from "node:fs";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));

// stub records the first message of a routed connection.
function stub(version, got) {
  return {
    connect(stream) {
      const reader = stream.readable.getReader();
      const closed = reader.read().then((r) => {
        got.routed = { version, message: r.value };
        reader.releaseLock();
      });
      return { closed };
    },
  };
}

async function runCase(c) {
  const got = { routed: null };
  const router = agentProtocolRouter();
  if (c.versions.includes(1)) router.withV1(stub(1, got));
  if (c.versions.includes(2)) router.withV2(stub(2, got));
  const input = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(c.frame + "\n"));
      controller.close();
    },
  });
  let written = "";
  const output = new WritableStream({
    write(chunk) {
      written += new TextDecoder().decode(chunk);
    },
  });
  await router.connect(ndJsonStream(output, input)).closed;
  if (got.routed) {
    return { name: c.name, verdict: `routed v${got.routed.version}`, params: got.routed.message.params };
  }
  const reply = written.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l))[0];
  if (reply) {
    return { name: c.name, verdict: `error ${reply.error?.code}`, params: null, id: reply.id };
  }
  return { name: c.name, verdict: "ignored", params: null };
}

const results = [];
for (const c of cases) {
  results.push(await runCase(c));
}
console.log(JSON.stringify(results));
