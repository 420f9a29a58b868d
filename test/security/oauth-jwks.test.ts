/**
 * A failing JWKS endpoint is not fetched once per presented token: after a failed key fetch the
 * gateway waits `jwksCooldown` before fetching again, so forged tokens cannot drive the fetches.
 * The endpoint is a real HTTP server on 127.0.0.1 that counts its hits.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { INITIALIZE, MCP_HEADERS } from "./_http.ts";
import { AUDIENCE, b64url } from "./_oidc.ts";

/** A token shaped like an ES256 JWT with a key id of its own and a signature nobody made. */
const forged = (i: number) =>
  `${b64url({ alg: "ES256", kid: `forged-${i}` })}.${
    b64url({ iss: "x", sub: `s${i}`, exp: Math.floor(Date.now() / 1000) + 300 })
  }.${"A".repeat(86)}`;

const yaml = (issuer: string, cooldown: string) => `
gateway:
  auth:
    oauth:
      issuer: ${issuer}
      audience: ${AUDIENCE}
      jwksUri: ${issuer}/jwks
      jwksCooldown: ${cooldown}
servers: {}
`;

async function initialize(base: string, token: string): Promise<number> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    body: INITIALIZE,
  });
  await res.body?.cancel();
  return res.status;
}

describe("a failing JWKS endpoint", () => {
  let jwks: Server;
  let issuer: string;
  let hits = 0;
  let long: TestGateway;
  let short: TestGateway;

  before(async () => {
    jwks = createServer((req, res) => {
      if (req.url === "/jwks") hits++;
      res.writeHead(500, { "content-type": "text/plain" }).end("down");
    });
    await new Promise<void>((r) => jwks.listen(0, "127.0.0.1", r));
    issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
    long = await startTestGateway(yaml(issuer, "30s"));
    short = await startTestGateway(yaml(issuer, "1s"));
  });
  after(async () => {
    await Promise.all([long?.stop(), short?.stop()]);
    await new Promise((r) => jwks.close(r));
  });

  it("is fetched once for many forged tokens within the cooldown", async () => {
    const start = hits;
    const statuses = [];
    for (let i = 0; i < 30; i++) statuses.push(await initialize(long.url, forged(i)));
    // Every token is refused as "keys unavailable" (never accepted), and one fetch served all.
    assert.deepEqual(new Set(statuses), new Set([503]));
    assert.equal(hits - start, 1, `the JWKS endpoint was hit ${hits - start} times`);
  });

  it("is fetched again once the cooldown has passed", async () => {
    const start = hits;
    assert.equal(await initialize(short.url, forged(100)), 503);
    for (let i = 0; i < 10; i++) await initialize(short.url, forged(101 + i));
    assert.equal(hits - start, 1);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(await initialize(short.url, forged(200)), 503);
    assert.equal(hits - start, 2, "one more fetch after the cooldown");
  });
});
