/**
 * A 2026-07-28 call whose client declared none of sampling, elicitation and roots can never be
 * asked anything, so the continuations do not park it (`src/session/modern/flow-request.ts`):
 * it is not counted as parked while it runs, its request being aborted cancels it upstream, and a
 * server request during it is still refused with -32021. A client that can be asked still gets
 * the parked road. Real gateway, real stdio upstream, real HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RequestIdentity } from "../../src/session/mod.ts";
import { createModernFront } from "../../src/session/modern/mod.ts";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { answerOf, MODERN, postModern } from "./_modern.ts";

const WHO: RequestIdentity = { tokenName: null, toolGlobs: null };
/** Requests handed to the door itself (no classifier before it: the SDK's road). */
const DOOR = "http://127.0.0.1/mcp";

/** A raw 2026-07-28 `tools/call` of `echo__slow` to `url`, which `signal` can abort. */
function slowCall(
  url: string,
  ms: number,
  caps: Record<string, unknown>,
  signal?: AbortSignal,
): Request {
  return new Request(url, {
    method: "POST",
    ...(signal ? { signal } : {}),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "echo__slow",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "echo__slow",
        arguments: { ms },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": caps,
        },
      },
    }),
  });
}

describe("a 2026-07-28 call nobody can ask", () => {
  let gw: TestGateway;
  const inFlight = () => gw.running.gateway.passthrough.calls.callsOn("echo").length;
  before(async () => {
    gw = await startTestGateway(
      `servers:\n  echo: ${nodeServer("echo.mjs")}\n` +
        `  conformance: ${nodeServer("conformance.mjs", "prefix: false")}\n`,
    );
  });
  after(() => gw.stop());

  it("is not parked while it runs; one that can be asked is", async () => {
    const front = createModernFront(gw.running.gateway, { maxBodyBytes: 1_000_000 });
    try {
      const plain = front.fetch(slowCall(DOOR, 1500, {}), WHO);
      await waitFor(() => inFlight() === 1, 10_000, "the plain call to be in flight");
      assert.equal(front.parked(), 0);
      const res = await plain;
      assert.equal(res.status, 200);
      assert.match(await res.text(), /slept 1500ms/);

      const askable = front.fetch(slowCall(DOOR, 1500, { elicitation: {} }), WHO);
      await waitFor(() => inFlight() === 1, 10_000, "the askable call to be in flight");
      assert.equal(front.parked(), 1);
      const answered = await askable;
      assert.equal(answered.status, 200);
      assert.match(await answered.text(), /slept 1500ms/);
      assert.equal(front.parked(), 0);
    } finally {
      await front.close();
    }
  });

  it("is cancelled upstream when its request is aborted", async () => {
    const front = createModernFront(gw.running.gateway, { maxBodyBytes: 1_000_000 });
    try {
      const stop = new AbortController();
      const call = front.fetch(slowCall(DOOR, 60_000, {}, stop.signal), WHO);
      void call.catch(() => {});
      await waitFor(() => inFlight() === 1, 10_000, "the call to be in flight");
      stop.abort();
      // Long before its 60 s: the old road ran it to the end on a controller of its own.
      await waitFor(() => inFlight() === 0, 20_000, "the abandoned call to be cancelled");
    } finally {
      await front.close();
    }
  });

  it("still has an upstream's request refused with -32021 (the fast path)", async () => {
    const tool = "test_input_required_result_elicitation";
    const res = await postModern(gw.url, "", "tools/call", { name: tool, arguments: {} });
    const body = JSON.stringify(await answerOf(res));
    assert.match(body, /did not declare elicitation/);
    assert.doesNotMatch(body, /inputRequests/);
  });
});
