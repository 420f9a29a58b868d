/**
 * An event stream's response head is sent when the stream opens, not with its first event: a
 * client's `fetch` resolves at once for a 2025 `GET /mcp`, a legacy `GET /sse` and a 2026-07-28
 * `subscriptions/listen`, on a gateway that has nothing to send yet.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixture, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";
import { listenBody } from "./_streams.ts";

/** Milliseconds until `fetch(url, init)` resolves with a response head (at most 5 s). */
async function headWithin(url: string, init: RequestInit): Promise<number> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5_000);
  try {
    const res = await fetch(url, { ...init, signal: controller.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
    const ms = performance.now() - started;
    await res.body?.cancel();
    return ms;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

describe("event streams send their head at once", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(
      `servers:\n  echo: { command: node, args: ["${fixture("echo.mjs")}"] }\n`,
    );
  });
  after(() => gw?.stop());

  it("a 2025 session's GET /mcp", async () => {
    const sid = await openSession(gw.url);
    const ms = await headWithin(`${gw.url}/mcp`, {
      headers: { accept: "text/event-stream", "mcp-session-id": sid },
    });
    assert.ok(ms < 2_000, `head after ${Math.round(ms)} ms`);
  });

  it("a legacy GET /sse", async () => {
    const ms = await headWithin(`${gw.url}/sse`, { headers: { accept: "text/event-stream" } });
    assert.ok(ms < 2_000, `head after ${Math.round(ms)} ms`);
  });

  it("a 2026-07-28 subscriptions/listen", async () => {
    const ms = await headWithin(`${gw.url}/mcp`, {
      method: "POST",
      headers: {
        ...MCP_HEADERS,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen",
      },
      body: listenBody([]),
    });
    assert.ok(ms < 2_000, `head after ${Math.round(ms)} ms`);
  });
});
