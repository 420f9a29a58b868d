import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";

function call(url: string, sid: string, id: number, name: string, args: object, meta?: object) {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": sid },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    }),
  });
}

describe("the tools/call fast path", () => {
  let gw: TestGateway;
  let sid: string;
  before(async () => {
    gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    sid = await openSession(gw.url);
  });
  after(() => gw?.stop());

  it("answers a call whose result comes first with plain JSON", async () => {
    const res = await call(gw.url, sid, 1, "echo__echo", { a: 1 });
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(res.headers.get("mcp-session-id"), sid);
    const body = await res.json();
    assert.deepEqual(body, {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: '{"a":1}' }] },
    });
  });

  it("switches to an SSE stream when progress comes first, then delivers the result on it", async () => {
    const res = await call(gw.url, sid, 2, "echo__slow", { ms: 60, steps: 3 }, {
      progressToken: "t2",
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const text = await res.text();
    const messages = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) =>
      JSON.parse(l.slice(6))
    );
    const progress = messages.filter((m) => m.method === "notifications/progress");
    assert.ok(progress.length >= 1 && progress.every((m) => m.params.progressToken === "t2"));
    assert.deepEqual(messages.at(-1), {
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "slept 60ms" }] },
    });
  });

  it("answers a cancelled call as cancelled", async () => {
    const pending = call(gw.url, sid, 3, "echo__slow", { ms: 30_000, steps: 1 });
    await new Promise((r) => setTimeout(r, 200));
    const cancel = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": sid },
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 3 },
      }),
    });
    assert.equal(cancel.status, 202);
    const body = await (await pending).json();
    assert.deepEqual(body, {
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32800, message: "Request cancelled" },
    });
  });

  it("answers an unknown tool with a JSON-RPC error naming it", async () => {
    const body = await (await call(gw.url, sid, 4, "nope", {})).json();
    assert.equal(body.id, 4);
    assert.match(body.error.message, /unknown tool "nope"/);
  });

  it("leaves requests it cannot take to the SDK transport (unsupported protocol version)", async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "1999-01-01" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "echo__echo" },
      }),
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Unsupported protocol version/);
  });
});
