/**
 * Sessions that do not pile up: one-shot SDK clients (connect, ask, close without `DELETE`)
 * free their place after `limits.sessionIdleShort`; a session holding a subscription keeps the
 * long `sessionIdle`; every refusal of a session says when to retry and how long the oldest idle
 * session has been idle.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { errorResponse } from "../../src/http/error-answer.ts";
import { GatewayError } from "../../src/shared/errors.ts";
import { bearer, INITIALIZE, MCP_HEADERS, ping } from "./_http.ts";

const A = "idle-token-a-0123456789";
const B = "idle-token-b-0123456789";

/** One run of a one-shot client: connect, list tools, close without ending the session. */
async function oneShot(base: string, token: string): Promise<string> {
  const client = new Client({ name: "one-shot", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: bearer(token) },
  });
  await client.connect(transport);
  await client.listTools();
  const sid = transport.sessionId!;
  await client.close();
  return sid;
}

/** A raw initialize for `token`: the refusal when the gateway refuses it. */
async function initialize(base: string, token: string): Promise<Response> {
  return await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...bearer(token) },
    body: INITIALIZE,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("one-shot clients and limits.sessionIdleShort", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: a, token: "${A}" }, { name: b, token: "${B}" }] }
  limits: { sessions: 8, sessionIdle: 1h, sessionIdleShort: 1s } # a token's share: 2
servers:
  changing: ${nodeServer("changing.mjs")}
`);
  });
  after(async () => await gw?.stop());

  it("lets a token run more one-shot clients than its share, one after another", async () => {
    for (let run = 1; run <= 5; run++) {
      await oneShot(gw.url, A);
      // The short limit is 1 s and the sweeper runs every 250 ms.
      await sleep(1500);
    }
    const last = await oneShot(gw.url, A);
    assert.equal(await ping(gw.url, last, bearer(A)), 200, "a fresh session still answers");
  });

  it("ends a session left without a stream after the short limit", async () => {
    const sid = await oneShot(gw.url, A);
    await sleep(2000);
    assert.equal(await ping(gw.url, sid, bearer(A)), 404);
  });

  it("keeps a session holding a resource subscription past the short limit", async () => {
    const client = new Client({ name: "subscriber", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: bearer(B) },
    });
    await client.connect(transport);
    await client.subscribeResource({ uri: "changing://base" });
    const sid = transport.sessionId!;
    await client.close(); // its GET stream ends; the subscription stays
    await sleep(2500);
    assert.equal(await ping(gw.url, sid, bearer(B)), 200);
    await fetch(`${gw.url}/mcp`, {
      method: "DELETE",
      headers: { ...MCP_HEADERS, ...bearer(B), "mcp-session-id": sid },
    }).then((r) => r.body?.cancel());
  });
});

describe("refused sessions say when to retry", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: a, token: "${A}" }, { name: b, token: "${B}" }] }
  limits: { sessions: 3, sessionsPerToken: 2, sessionIdle: 1h, sessionIdleShort: 40s }
servers: {}
`);
  });
  after(async () => await gw?.stop());

  it("answers a token past its share 429 with Retry-After and the oldest idle age", async () => {
    await oneShot(gw.url, A);
    await sleep(1100);
    await oneShot(gw.url, A);
    const res = await initialize(gw.url, A);
    assert.equal(res.status, 429);
    const wait = Number(res.headers.get("retry-after"));
    // The oldest one-shot session has been idle a little over a second of its 40.
    assert.ok(wait >= 30 && wait <= 39, `Retry-After ${res.headers.get("retry-after")}`);
    const message: string = (await res.json()).error.message;
    assert.match(message, /the oldest idle one has been idle [1-9]\d*s and is ended in \d+s/);
    assert.match(message, /sessionsPerToken = 2/);
  });

  it("answers a full table 503 with Retry-After", async () => {
    await oneShot(gw.url, B);
    const res = await initialize(gw.url, B);
    assert.equal(res.status, 503);
    const wait = Number(res.headers.get("retry-after"));
    assert.ok(wait >= 1 && wait <= 40, `Retry-After ${res.headers.get("retry-after")}`);
    assert.match((await res.json()).error.message, /too many sessions \(limit 3\)/);
  });
});

describe("Retry-After on every 429 and 503", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
servers:
  gone: { command: node, args: ["-e", "process.exit(3)"], required: true, restart: { maxRestarts: 0 } }
`);
  });
  after(async () => await gw?.stop());

  it("is put on an error answer that knows no wait of its own", () => {
    const gateway = gw.running.gateway;
    for (
      const err of [
        new GatewayError("UPSTREAM_UNAVAILABLE", "server x is down"),
        new GatewayError("RATE_LIMITED", "the task table is full", { data: { limit: "tasks" } }),
      ]
    ) {
      const res = errorResponse(gateway, err, "/mcp");
      assert.ok([429, 503].includes(res.status), err.code);
      assert.match(res.headers.get("retry-after") ?? "", /^[1-9]\d*$/, err.code);
    }
    const limited = errorResponse(
      gateway,
      new GatewayError("RATE_LIMITED", "slow down", { data: { retryAfter: 7 } }),
      "/mcp",
    );
    assert.equal(limited.headers.get("retry-after"), "7");
  });

  it("is on /readyz while a required server is down", async () => {
    const res = await fetch(`${gw.url}/readyz`);
    await res.body?.cancel();
    assert.equal(res.status, 503);
    assert.match(res.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  });
});
