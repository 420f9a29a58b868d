/**
 * A gateway whose Redis is unreachable from the start: it serves at once with local limits,
 * shows the degraded state in `/metrics` and `/cluster`, and refuses a continuation owned by
 * another instance at once instead of waiting. Needs no Redis or HAProxy: the Redis URL points
 * at a loopback port nobody listens on.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { freePort, metric, rawCall } from "./_cluster.ts";

const TOKEN = "degraded-0123456789abcdef";
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe("a gateway whose Redis is down", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth:
    tokens: [{ name: t, token: ${TOKEN}, admin: true }]
    rateLimit: { perMinute: 60, burst: 5 }
  cluster:
    redis: redis://127.0.0.1:${await freePort()}
    stateKey: degraded-test-state-key-0123456789abcdef
    timeout: 200ms
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => {
    await gw?.stop();
  });

  it("serves at once with local limits and shows the degraded state", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = Date.now();
      const r = await rawCall(gw.url, { name: "echo__echo", arguments: { text: "x" } }, TOKEN);
      assert.ok(Date.now() - t0 < 1_000, `answered after ${Date.now() - t0} ms`);
      statuses.push(r.status);
    }
    // Burst 5 in this process: the two /metrics and /cluster reads below come after.
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
    await new Promise((r) => setTimeout(r, 1_100)); // one token back (60/min)
    assert.equal(await metric(gw.url, "mcp_gateway_cluster_degraded", AUTH), 1);
  });

  it("refuses at once a continuation another instance owns", async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    const t0 = Date.now();
    const r = await rawCall(gw.url, {
      name: "echo__echo",
      arguments: {},
      inputResponses: {},
      requestState: "other-instance~AAAA",
    }, TOKEN);
    assert.ok(Date.now() - t0 < 1_000);
    const error = r.body.error as { message: string };
    assert.match(error.message, /other-instance.*cannot be reached.*again without requestState/);
  });
});
