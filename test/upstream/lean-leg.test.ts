/**
 * The lean leg in process: which messages it takes off a stdio line (its own answers and
 * progress, late ones included) and which it leaves to the SDK client. What its calls mean
 * (timeouts, cancellation, errors) is pinned against the SDK's in caller-parity.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { NO_CONTEXT } from "../../src/shared/call-context.ts";
import { framed } from "../../src/upstream/frame.ts";
import { LeanLeg } from "../../src/upstream/lean-leg.ts";

function harness() {
  const sent: Record<string, unknown>[] = [];
  const leg = new LeanLeg("s", (m: JSONRPCMessage) => {
    sent.push(m as Record<string, unknown>);
    return Promise.resolve();
  });
  return { sent, leg, caller: framed(leg, "s") };
}

describe("the lean leg's share of a stdio line", () => {
  it("takes its own answer and resolves the call with it", async () => {
    const { sent, leg, caller } = harness();
    const p = caller.call("tools/call", { name: "t" }, NO_CONTEXT, { timeoutMs: 5000 });
    const id = sent[0]!.id as string;
    assert.match(id, /^gw-\d+$/);
    assert.equal(leg.message({ jsonrpc: "2.0", id, result: { content: [] } }), true);
    assert.deepEqual(await p, { content: [] });
  });

  it("leaves the SDK's answers, server requests and other notifications alone", () => {
    const { leg } = harness();
    assert.equal(leg.message({ jsonrpc: "2.0", id: 3, result: {} }), false);
    assert.equal(leg.message({ jsonrpc: "2.0", id: "other", result: {} }), false);
    assert.equal(
      leg.message({ jsonrpc: "2.0", id: "gw-1", method: "sampling/createMessage" }),
      false,
    );
    assert.equal(
      leg.message({ method: "notifications/progress", params: { progressToken: 7, progress: 1 } }),
      false,
    );
    assert.equal(leg.message({ method: "notifications/message", params: {} }), false);
  });

  it("swallows a late answer and late progress of a call that timed out", async () => {
    const { sent, leg, caller } = harness();
    await assert.rejects(caller.call("tools/call", { name: "t" }, NO_CONTEXT, { timeoutMs: 10 }));
    const id = sent[0]!.id as string;
    assert.equal(sent[1]!.method, "notifications/cancelled");
    assert.equal(leg.message({ jsonrpc: "2.0", id, result: {} }), true);
    assert.equal(
      leg.message({ method: "notifications/progress", params: { progressToken: id, progress: 1 } }),
      true,
    );
  });

  it("sends its id as the progress token, beside the caller's own _meta", async () => {
    const { sent, leg, caller } = harness();
    const seen: unknown[] = [];
    const p = caller.call("tools/call", { name: "t" }, {
      ...NO_CONTEXT,
      meta: { traceparent: "tp" },
      onprogress: (r) => seen.push(r),
    }, { timeoutMs: 5000 });
    const id = sent[0]!.id as string;
    assert.deepEqual((sent[0]!.params as { _meta: unknown })._meta, {
      traceparent: "tp",
      progressToken: id,
    });
    leg.message({ method: "notifications/progress", params: { progressToken: id, progress: 1 } });
    leg.message({ jsonrpc: "2.0", id, result: { content: [] } });
    await p;
    assert.deepEqual(seen, [{ progress: 1 }]);
  });
});
