/**
 * The 2026-07-28 door built at its first request (`src/session/modern/lazy.ts`), over a real
 * gateway with a real upstream: it serves its first request, a door closed before it was ever
 * built refuses as a closed door does, and a continuation the cluster relays here before any
 * local request builds the door and is served by it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ModernRelay } from "../../src/session/modern/mod.ts";
import type { RequestIdentity } from "../../src/session/mod.ts";
import { createModernFront } from "../../src/session/modern/mod.ts";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MODERN } from "./_modern.ts";

const WHO: RequestIdentity = { tokenName: null, toolGlobs: null };

/** A raw 2026-07-28 `tools/list`, as a client sends it. */
function toolsList(): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
}

describe("the modern door, built on demand", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
  });
  after(() => gw.stop());

  it("serves its first request", async () => {
    const front = createModernFront(gw.running.gateway, { maxBodyBytes: 1_000_000 });
    assert.equal(front.parked(), 0);
    const res = await front.fetch(toolsList(), WHO);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /echo__/);
    await front.close();
  });

  it("refuses after close() even when it was never built", async () => {
    const open = createModernFront(gw.running.gateway, { maxBodyBytes: 1_000_000 });
    const closed = createModernFront(gw.running.gateway, { maxBodyBytes: 1_000_000 });
    await closed.close();
    const served = await open.fetch(toolsList(), WHO);
    await served.text();
    assert.equal(served.status, 200);
    // As a door closed after it was built: the SDK's handler throws (the front door answers 500).
    await assert.rejects(closed.fetch(toolsList(), WHO), /closed/);
    await open.fetch(toolsList(), WHO).then((r) => r.text());
    await open.close();
    await assert.rejects(open.fetch(toolsList(), WHO), /closed/);
  });

  it("serves a continuation the cluster relays here before any local request", async () => {
    let serve: ((request: Request, identity: RequestIdentity) => Promise<Response>) | undefined;
    const relay: ModernRelay = {
      owner: "self",
      forward: () => Promise.resolve(null),
      attach: (s) => void (serve = s),
    };
    const front = createModernFront(gw.running.gateway, { maxBodyBytes: 1_000_000, relay });
    assert.ok(serve, "the relay knows at once that this instance serves");
    const res = await serve(toolsList(), WHO);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /echo__/);
    await front.close();
  });
});
