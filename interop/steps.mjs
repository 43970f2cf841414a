// Step reporting shared by the interop clients: each step checks its result
// and prints "ok STEP: details" on stdout; the first failure is a
// StepFailure, which the script prints as "FAIL STEP: reason" on stderr.
import { RequestError } from "@agentclientprotocol/sdk";

export class StepFailure extends Error {
  constructor(step, message) {
    super(message);
    this.step = step;
  }
}

export function ok(step, details) {
  console.log(`ok ${step}: ${details}`);
}

export function check(step, cond, message) {
  if (!cond) {
    throw new StepFailure(step, message);
  }
}

// expectError runs a request that must be answered with a JSON-RPC error code.
// RequestError is one class for every entry point of the SDK (v1, v2, the
// network clients).
export async function expectError(step, code, promise) {
  try {
    const result = await promise;
    throw new StepFailure(step, `answered ${JSON.stringify(result)}, want error ${code}`);
  } catch (e) {
    if (e instanceof StepFailure) {
      throw e;
    }
    check(step, e instanceof RequestError && e.code === code, `got ${e}, want error ${code}`);
    return e;
  }
}

// next reads the session's next update or stop message, failing after 10 s.
export function next(step, session) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new StepFailure(step, "no session update within 10 s")), 10_000);
  });
  return Promise.race([session.nextUpdate(), timeout]).finally(() => clearTimeout(timer));
}
