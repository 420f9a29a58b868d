import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LeanCalls, UpstreamRpcError } from "../../src/upstream/lean-calls.ts";
import { GatewayError } from "../../src/shared/errors.ts";

function harness() {
  const sent: Record<string, unknown>[] = [];
  const calls = new LeanCalls((m) => {
    sent.push(m as Record<string, unknown>);
    return Promise.resolve();
  });
  return { sent, calls };
}

describe("lean tools/call to a stdio upstream", () => {
  it("resolves with the result of the answer carrying its id", async () => {
    const { sent, calls } = harness();
    const p = calls.call({ name: "echo" }, { server: "s", timeoutMs: 5000 });
    const id = sent[0]!.id as string;
    assert.match(id, /^gw-\d+$/);
    assert.equal(calls.intercept({ id, result: { content: [] } }), true);
    assert.deepEqual(await p, { content: [] });
  });

  it("leaves messages that are not its answers to the SDK client", () => {
    const { calls } = harness();
    assert.equal(calls.intercept({ id: 3, result: {} }), false);
    assert.equal(calls.intercept({ id: "other", result: {} }), false);
  });

  it("passes an upstream JSON-RPC error through with its code and data", async () => {
    const { sent, calls } = harness();
    const p = calls.call({ name: "x" }, { server: "s", timeoutMs: 5000 });
    calls.intercept({ id: sent[0]!.id, error: { code: -32602, message: "bad", data: { a: 1 } } });
    await assert.rejects(
      p,
      (err: unknown) => err instanceof UpstreamRpcError && err.code === -32602,
    );
  });

  it("times out with a clear error and sends a cancellation upstream", async () => {
    const { sent, calls } = harness();
    await assert.rejects(
      calls.call({ name: "x" }, { server: "slow", timeoutMs: 20 }),
      (err: unknown) =>
        err instanceof GatewayError && err.code === "UPSTREAM_TIMEOUT" &&
        /"slow" did not answer within 20ms/.test(err.message),
    );
    assert.equal(sent[1]!.method, "notifications/cancelled");
    assert.equal((sent[1]!.params as { requestId: string }).requestId, sent[0]!.id);
    assert.equal(
      calls.intercept({ id: sent[0]!.id, result: {} }),
      true,
      "a late answer is swallowed",
    );
  });

  it("cancels on abort and tells the upstream", async () => {
    const { sent, calls } = harness();
    const abort = new AbortController();
    const p = calls.call({ name: "x" }, { server: "s", timeoutMs: 5000, signal: abort.signal });
    abort.abort();
    await assert.rejects(p, /was cancelled/);
    assert.equal(sent[1]!.method, "notifications/cancelled");
  });

  it("fails every pending call at once when the connection closes", async () => {
    const { calls } = harness();
    const a = calls.call({ name: "x" }, { server: "s", timeoutMs: 5000 });
    const b = calls.call({ name: "y" }, { server: "s", timeoutMs: 5000 });
    calls.failAll("s");
    await assert.rejects(a, /closed the connection during the call/);
    await assert.rejects(
      b,
      (err: unknown) => err instanceof GatewayError && err.code === "UPSTREAM_UNAVAILABLE",
    );
  });
});
