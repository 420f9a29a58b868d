/**
 * The fast path and the SDK session server must be indistinguishable on the wire: the same
 * `tools/call` sent to both yields the same JSON-RPC messages, byte for byte (results, `isError`
 * results, structured results, progress, errors). A one-item batch is never taken by the fast
 * path, so it is answered by the SDK session server of the same session.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LOCAL_CALLER } from "../../src/gateway/mod.ts";
import { rawJsonOf } from "../../src/shared/raw-json.ts";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";

/** The JSON-RPC messages of an answer as the text they were sent as, in order. */
async function messagesOf(res: Response): Promise<string[]> {
  const text = await res.text();
  if (res.headers.get("content-type")?.startsWith("application/json")) return [text];
  return text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
}

interface Pair {
  fast: string[];
  sdk: string[];
  fastType: string | null;
}

/** Sends the same call on the fast path and (as a one-item batch) to the SDK session server. */
async function both(gw: TestGateway, sid: string, id: number, params: object): Promise<Pair> {
  const request = { jsonrpc: "2.0", id, method: "tools/call", params };
  const post = (body: unknown) =>
    fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": sid },
      body: JSON.stringify(body),
    });
  const fastRes = await post(request);
  const fastType = fastRes.headers.get("content-type");
  const fast = await messagesOf(fastRes);
  const sdk = await messagesOf(await post([request]));
  return { fast, sdk, fastType };
}

describe("the fast path answers tools/call exactly as the SDK session server does", () => {
  let gw: TestGateway;
  let sid: string;
  before(async () => {
    gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    sid = await openSession(gw.url, {}, { protocolVersion: "2025-03-26" });
  });
  after(() => gw?.stop());

  it("a stdio upstream's result keeps the JSON text it arrived as", async () => {
    const result = await gw.running.gateway.callTool("echo__echo", { a: "é" }, {
      caller: LOCAL_CALLER,
    });
    assert.equal(rawJsonOf(result), JSON.stringify(result));
    // A call relaying progress goes through the same lean caller: its result keeps its text too.
    const relayed = await gw.running.gateway.callTool("echo__echo", {}, {
      caller: LOCAL_CALLER,
      onprogress: () => {},
    });
    assert.equal(rawJsonOf(relayed), JSON.stringify(relayed));
  });

  it("a result", async () => {
    const { fast, sdk, fastType } = await both(gw, sid, 1, {
      name: "echo__echo",
      arguments: { a: 1, text: 'é \u2028 "quoted"', n: [1.5, -0, 1e21] },
    });
    assert.equal(fastType, "application/json");
    assert.equal(fast.length, 1);
    assert.deepEqual(fast, sdk);
    assert.deepEqual(JSON.parse(fast[0]!).result.content[0].type, "text");
  });

  it("a structured result", async () => {
    const { fast, sdk } = await both(gw, sid, 2, {
      name: "echo__structured",
      arguments: { n: 21 },
    });
    assert.deepEqual(fast, sdk);
    assert.deepEqual(JSON.parse(fast[0]!).result.structuredContent, { doubled: 42 });
  });

  it("an isError result", async () => {
    const { fast, sdk } = await both(gw, sid, "e-3" as never, { name: "echo__fail" });
    assert.deepEqual(fast, sdk);
    assert.equal(JSON.parse(fast[0]!).result.isError, true);
    assert.equal(JSON.parse(fast[0]!).id, "e-3");
  });

  it("a result with an image", async () => {
    const { fast, sdk } = await both(gw, sid, 4, { name: "echo__picture" });
    assert.deepEqual(fast, sdk);
  });

  it("progress, then the result", async () => {
    const { fast, sdk, fastType } = await both(gw, sid, 5, {
      name: "echo__slow",
      arguments: { ms: 60, steps: 3 },
      _meta: { progressToken: "p5" },
    });
    assert.equal(fastType, "text/event-stream");
    assert.equal(fast.length, 4);
    assert.deepEqual(fast, sdk);
    assert.equal(JSON.parse(fast[0]!).method, "notifications/progress");
  });

  it("an error (unknown tool)", async () => {
    const { fast, sdk } = await both(gw, sid, 6, { name: "nope__nothing" });
    assert.deepEqual(fast, sdk);
    assert.equal(JSON.parse(fast[0]!).error.data.code, "TOOL_NOT_FOUND");
  });

  it("a call carrying a traceparent", async () => {
    const { fast, sdk } = await both(gw, sid, 7, {
      name: "echo__slow",
      arguments: { ms: 10 },
      _meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    assert.deepEqual(fast, sdk);
  });
});
