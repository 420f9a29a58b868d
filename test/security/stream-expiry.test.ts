/**
 * A stream opened with an OAuth access token ends when the token expires: the 2025 `GET /mcp`
 * stream, the legacy `GET /sse` stream and the 2026-07-28 `subscriptions/listen` stream. Tokens
 * come from a real authorization server (`oidc-provider` in a child process) and expire within
 * seconds; the streams are read over raw sockets. A stream opened with a longer-lived token
 * stays open, so it is the expiry that ends them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { getStreamBytes, listenBytes, type RawStream, rawStream } from "../http/_streams.ts";
import { AUDIENCE, startProvider, type TestProvider } from "./_oidc.ts";
import { bearer, httpBytes, INITIALIZE, MCP_HEADERS } from "./_http.ts";

const ADMIN = "stream-expiry-admin-0123456789";
const CLIENT = { id: "stream-agent", secret: "stream-secret-0123456789abcdef", scope: "tools:all" };
/** Seconds a short token lives: long enough to open every stream, short for the test. */
const SHORT_S = 10;

describe("streams opened with an access token", () => {
  let provider: TestProvider;
  let gw: TestGateway;
  let port: number;
  const open: RawStream[] = [];
  const token = async (seconds: number, sub: string) => {
    const now = Math.floor(Date.now() / 1000);
    return await provider.sign({
      iss: provider.issuer,
      aud: AUDIENCE,
      sub,
      scope: "tools:all",
      iat: now,
      exp: now + seconds,
    });
  };
  /** Opens a 2025 session with `jwt`; its id. */
  const session = async (jwt: string) => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer(jwt) },
      body: INITIALIZE,
    });
    await res.body?.cancel();
    assert.equal(res.status, 200);
    return res.headers.get("mcp-session-id")!;
  };
  const stream = (bytes: Uint8Array) => {
    const s = rawStream(port, bytes);
    open.push(s);
    return s;
  };
  const metric = async (series: string) => {
    const text = await (await fetch(`${gw.url}/metrics`, { headers: bearer(ADMIN) })).text();
    const line = text.split("\n").find((l) => l.startsWith(series + " "));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };

  before(async () => {
    provider = await startProvider([CLIENT], "tools:all");
    gw = await startTestGateway(`
gateway:
  auth:
    tokens: [{ name: admin, token: "${ADMIN}", admin: true }]
    oauth:
      issuer: ${provider.issuer}
      audience: ${AUDIENCE}
      scopes: { "tools:all": ["*"] }
      clockTolerance: 0s
servers: {}
`);
    port = Number(new URL(gw.url).port);
  });
  after(async () => {
    for (const s of open) s.close();
    await gw?.stop();
    await provider?.stop();
  });

  it("end when the token expires, on every kind of stream; a live token's stream stays", async () => {
    const short = await token(SHORT_S, "short-lived");
    const long = await token(600, "long-lived");
    const get = stream(getStreamBytes(await session(short), bearer(short)));
    const kept = stream(getStreamBytes(await session(long), bearer(long)));
    const sse = stream(httpBytes("GET", "/sse", { host: "127.0.0.1", ...bearer(short) }));
    const listen = stream(listenBytes([], bearer(short)));
    await waitFor(() => sse.text.includes("event: endpoint"), 10_000, "the SSE endpoint event");
    await waitFor(() => listen.text.includes("acknowledged"), 10_000, "the listen acknowledgement");
    assert.equal(await get.ended(500), false, "the GET stream is open before the expiry");
    // Every stream opened with the short token ends within a few seconds of its expiry.
    const deadline = SHORT_S * 1000 + 20_000;
    const ended = await Promise.all([get, sse, listen].map((s) => s.ended(deadline)));
    assert.deepEqual(ended, [true, true, true], "GET, SSE and listen streams ended");
    assert.equal(await kept.ended(500), false, "the long-lived token's stream is still open");
    for (const kind of ["get", "sse", "listen"]) {
      const n = await metric(`mcp_gateway_streams_closed_total{stream="${kind}",reason="expired"}`);
      assert.equal(n, 1, `${kind} streams closed at expiry`);
    }
    // Coming back with the expired token is refused.
    const again = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer(short) },
      body: INITIALIZE,
    });
    await again.body?.cancel();
    assert.equal(again.status, 401);
  });
});
