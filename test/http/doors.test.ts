/**
 * The doors of `/mcp`, asked in order (`src/cli/serve.ts`): the 2026-07-28 door takes a request
 * the SDK classifies as its revision, the 2025 door the rest — and a request that carries
 * `Mcp-Session-Id` is the 2025 door's whatever its body: the 2026-07-28 door declines it from
 * the header alone, so it never reaches the classifier, even with a body the classifier would
 * hand to the modern door. Over real HTTP to a real gateway, in both length forms (the
 * pre-dispatch takes a stated length, hono's router a chunked body).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import { SessionRegistry, sseDoor } from "../../src/session/legacy/mod.ts";
import { createModernFront, modernDoor } from "../../src/session/modern/mod.ts";
import { createLogger } from "../../src/shared/log.ts";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { answerOf, envelope, MODERN, postModern } from "../protocol/_modern.ts";
import { bearer, httpBytes, openSession, rawRequest } from "../security/_http.ts";

const TOKEN = "doors-token-0123456789abcdef";
const YAML = `
gateway:
  auth:
    tokens: [{ name: a, token: ${TOKEN} }]
servers:
  echo: ${nodeServer("echo.mjs")}
`;

/** A `tools/list` of revision 2026-07-28, as `postModern` writes it, for a raw socket. */
const MODERN_LIST = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: { _meta: envelope() },
});

/** The same request, chunked (no stated length): hono's router serves it, not the pre-dispatch. */
function chunkedModernList(port: number, sessionId: string) {
  const body = `${Buffer.byteLength(MODERN_LIST).toString(16)}\r\n${MODERN_LIST}\r\n0\r\n\r\n`;
  return rawRequest(
    port,
    httpBytes("POST", "/mcp", {
      host: `127.0.0.1:${port}`,
      ...bearer(TOKEN),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/list",
      "mcp-session-id": sessionId,
      "transfer-encoding": "chunked",
    }, body),
  );
}

describe("the doors of /mcp", () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway(YAML);
    port = gw.running.http!.port;
  });
  after(async () => await gw?.stop());

  it("a 2026-07-28 request without a session takes the modern door", async () => {
    const res = await postModern(gw.url, TOKEN, "tools/list", {});
    assert.equal(res.status, 200);
    const answer = await answerOf(res);
    const result = answer.result as { tools: { name: string }[]; resultType?: string };
    assert.ok(result.tools.some((t) => t.name === "echo__echo"));
    assert.equal(result.resultType, "complete", "the modern door stamps resultType");
  });

  it("the same request with an unknown Mcp-Session-Id gets the 2025 door's 404", async () => {
    const headers = { "mcp-session-id": "no-such-session" };
    const res = await postModern(gw.url, TOKEN, "tools/list", {}, { headers });
    assert.equal(res.status, 404);
    const answer = await answerOf(res);
    assert.deepEqual(answer.error, { code: -32001, message: "Session not found" });
  });

  it("a chunked one gets the same 404 through hono's router", async () => {
    const res = await chunkedModernList(port, "no-such-session");
    assert.equal(res.status, 404);
    assert.match(res.body, /"code":-32001,"message":"Session not found"/);
  });

  it("on an open 2025 session it is that session's, answered by its transport", async () => {
    const sid = await openSession(gw.url, bearer(TOKEN));
    // The session's SDK transport refuses a revision it does not speak; the modern door would
    // have listed the tools.
    const res = await postModern(gw.url, TOKEN, "tools/list", {}, {
      headers: { "mcp-session-id": sid },
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Unsupported protocol version/);
    const chunked = await chunkedModernList(port, sid);
    assert.equal(chunked.status, 400);
    assert.match(chunked.body, /Unsupported protocol version/);
  });
});

describe("the legacy SSE door", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(YAML);
  });
  after(async () => await gw?.stop());

  it("decides from the method and the path alone", () => {
    const config = parseConfig("servers: {}\n", { file: join(tmpdir(), "gateway.yaml") });
    const sessions = new SessionRegistry(new Gateway(config, createLogger("test")), {
      maxSessions: 1,
      maxBodyBytes: 1 << 20,
      idleMs: 0,
    });
    after(() => sessions.closeAll());
    const door = sseDoor(sessions);
    const req = (method: string) => new Request("http://127.0.0.1/x", { method });
    assert.equal(door.accepts(req("GET"), "/sse"), "open");
    assert.equal(door.accepts(req("GET"), "/sse/work"), "open");
    assert.equal(door.accepts(req("POST"), "/message"), "message");
    for (const [method, path] of [["GET", "/mcp"], ["POST", "/mcp"], ["GET", "/message"]]) {
      assert.equal(door.accepts(req(method!), path!), false, `${method} ${path}`);
    }
  });

  it("takes a 2026-07-28 request posted to /message: the modern door is never asked", async () => {
    // Asked first, it answers for the legacy session the URL names (there is none); the modern
    // door, asked first, would have listed the tools.
    const path = "/message?sessionId=none";
    const res = await postModern(gw.url, TOKEN, "tools/list", {}, { path });
    assert.equal(res.status, 404);
    assert.deepEqual((await answerOf(res)).error, { code: -32001, message: "Session not found" });
  });
});

describe("the 2026-07-28 door's accepts", () => {
  const config = parseConfig("servers: {}\n", { file: join(tmpdir(), "gateway.yaml") });
  const gateway = new Gateway(config, createLogger("test"));
  const front = createModernFront(gateway, { maxBodyBytes: 1 << 20 });
  const door = modernDoor(front, () => 1 << 20);
  after(() => front.close());
  const request = (headers: Record<string, string>) =>
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/list",
        ...headers,
      },
      body: MODERN_LIST,
    });

  it("declines a request with Mcp-Session-Id at once, without classifying it", () => {
    // `false` itself, not a promise of it: no classification ran, no body was read.
    assert.equal(door.accepts(request({ "mcp-session-id": "any" }), "/mcp"), false);
  });

  it("accepts the same request without one, with the body it read", async () => {
    const ticket = await door.accepts(request({}), "/mcp");
    assert.ok(ticket);
    assert.equal((ticket.body as { method?: string }).method, "tools/list");
  });
});
