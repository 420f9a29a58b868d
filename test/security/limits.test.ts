import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { parseConfig } from "../../src/config/mod.ts";
import {
  bearer,
  httpBytes,
  INITIALIZE,
  MCP_HEADERS,
  openSession,
  ping,
  rawRequest,
} from "./_http.ts";

describe("request body limit", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway("gateway: { limits: { requestBody: 64KB } }\nservers: {}\n");
  });
  after(async () => await gw?.stop());

  const big = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "ping",
    params: { pad: "x".repeat(100_000) },
  });

  it("answers 413 with a JSON error to a body declared over the limit", async () => {
    const res = await fetch(`${gw.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: big });
    assert.equal(res.status, 413);
    assert.equal((await res.json()).error.code, "TOO_LARGE");
  });

  it("answers 413 with a JSON error to a chunked body that grows over the limit", async () => {
    const port = gw.running.http!.port;
    const chunks = [];
    for (let i = 0; i < big.length; i += 8192) {
      const part = big.slice(i, i + 8192);
      chunks.push(`${part.length.toString(16)}\r\n${part}\r\n`);
    }
    const res = await rawRequest(
      port,
      httpBytes(
        "POST",
        "/mcp",
        { host: `127.0.0.1:${port}`, ...MCP_HEADERS, "transfer-encoding": "chunked" },
        chunks.join("") + "0\r\n\r\n",
      ),
    );
    assert.equal(res.status, 413);
    assert.equal(JSON.parse(res.body).error.code, "TOO_LARGE");
  });

  it("accepts a body under the limit", async () => {
    const res = await fetch(`${gw.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: "{}" });
    await res.body?.cancel();
    assert.equal(res.status, 400);
  });
});

describe("per-token rate limit", () => {
  let gw: TestGateway;
  const A = "token-a-0123456789abcdef";
  const B = "token-b-0123456789abcdef";
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth:
    tokens: [{ name: a, token: "${A}" }, { name: b, token: "${B}" }]
    rateLimit: { perMinute: 6, burst: 3 }
servers: {}
`);
  });
  after(async () => await gw?.stop());

  const hit = async (token: string) => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer(token) },
      body: "{}",
    });
    const body = await res.text();
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
  };

  it("answers 429 with Retry-After once a token's burst is spent", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await hit(A)).status, 400, `request ${i + 1}`);
    const limited = await hit(A);
    assert.equal(limited.status, 429);
    assert.equal(JSON.parse(limited.body).error.code, "RATE_LIMITED");
    // 6/min refills one request every 10 s.
    const wait = Number(limited.retryAfter);
    assert.ok(wait >= 1 && wait <= 10, `Retry-After ${limited.retryAfter}`);
  });

  it("does not slow one token down for another token's traffic", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await hit(B)).status, 400, `request ${i + 1}`);
  });
});

describe("session limits", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(
      "gateway: { limits: { sessions: 2, sessionIdle: 1h } }\nservers: {}\n",
    );
  });
  after(async () => await gw?.stop());

  it("answers 503 to a session beyond the maximum", async () => {
    await openSession(gw.url);
    await openSession(gw.url);
    await assert.rejects(openSession(gw.url), /initialize answered 503/);
  });
});

describe("per-token share of the session table", () => {
  let gw: TestGateway;
  const A = "share-token-a-0123456789";
  const B = "share-token-b-0123456789";
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: a, token: "${A}" }, { name: b, token: "${B}" }] }
  limits: { sessions: 8, sessionIdle: 1h } # a token's share: a quarter, 2
servers: {}
`);
  });
  after(async () => await gw?.stop());

  it("refuses a token's session beyond its share with 429 naming the limit", async () => {
    await openSession(gw.url, bearer(A));
    await openSession(gw.url, bearer(A));
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer(A) },
      body: INITIALIZE,
    });
    assert.equal(res.status, 429);
    assert.match((await res.json()).error.message, /gateway\.limits\.sessionsPerToken = 2/);
    const sse = await fetch(`${gw.url}/sse`, { headers: bearer(A) });
    assert.equal(sse.status, 429);
    await sse.body?.cancel();
  });

  it("still opens sessions for another token", async () => {
    await openSession(gw.url, bearer(B));
    await openSession(gw.url, bearer(B));
  });

  it("takes gateway.limits.sessionsPerToken when set, a quarter of the table otherwise", () => {
    const config = parseConfig("gateway: { limits: { sessions: 1000 } }\n", {
      file: "/tmp/gw/gateway.yaml",
    });
    assert.equal(config.gateway.maxSessionsPerToken, 250);
    const set = parseConfig("gateway: { limits: { sessions: 10, sessionsPerToken: 7 } }\n", {
      file: "/tmp/gw/gateway.yaml",
    });
    assert.equal(set.gateway.maxSessionsPerToken, 7);
  });
});

/** Pings every 2.5 s (longer than the 1 s idle limit, since a ping is activity) until 404. */
async function untilExpired(base: string, sid: string): Promise<void> {
  for (let i = 0; i < 8; i++) {
    await new Promise((r) => setTimeout(r, 2500));
    if ((await ping(base, sid)) === 404) return;
  }
  assert.fail("the session was not closed within 20 s");
}

describe("session idle timeout", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway: { limits: { sessionIdle: 1s } }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => await gw?.stop());

  it("closes a session left idle past sessionIdle", async () => {
    const sid = await openSession(gw.url);
    await untilExpired(gw.url, sid);
  });

  it("keeps a session whose GET stream is open", async () => {
    const sid = await openSession(gw.url);
    const port = gw.running.http!.port;
    const socket = connect({ host: "127.0.0.1", port });
    const head = new Promise<string>((resolve) => socket.once("data", (d) => resolve(String(d))));
    socket.write(httpBytes("GET", "/mcp", {
      host: `127.0.0.1:${port}`,
      accept: "text/event-stream",
      "mcp-session-id": sid,
    }));
    assert.match(await head, /^HTTP\/1\.1 200/);
    // Three idle periods, with the sweeper running every 250 ms.
    await new Promise((r) => setTimeout(r, 3000));
    try {
      assert.equal(await ping(gw.url, sid), 200);
    } finally {
      socket.destroy();
    }
    await untilExpired(gw.url, sid);
  });

  it("keeps a session while a request runs longer than sessionIdle", async () => {
    const sid = await openSession(gw.url);
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": sid },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "echo__slow", arguments: { ms: 3000 } },
      }),
    });
    const text = await res.text();
    assert.match(text, /slept 3000ms/);
    assert.equal(await ping(gw.url, sid), 200);
  });
});
