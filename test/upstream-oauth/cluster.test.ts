/**
 * Upstream credentials with `gateway.cluster`: two gateways share one Redis (a throw-away
 * `redis-server`); a per-user login made through one serves the same identity on the other,
 * sealed in Redis, and once the access token expires both instances refreshing at the same
 * moment refresh once (a lock): the authorization server rotates refresh tokens, so a second
 * refresh with the old one would be refused and the user would need a login again.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RunningGateway } from "../../src/cli/mod.ts";
import { textOf } from "../_helpers/gateway.ts";
import { freePort, missingTools, type Proc, startRedis } from "../cluster/_cluster.ts";
import { authedHttpClient } from "../security/_http.ts";
import { browserLogin, configFile, type Parties, startFromFile, startParties } from "./_setup.ts";

const TTL_S = 3;
const ALICE = "alice-token-0123456789";
const skip = missingTools();

describe("upstream OAuth credentials in a cluster", { timeout: 120_000, skip }, () => {
  let parties: Parties;
  let upstream: Parties["upstream"];
  let redis: Proc;
  let redisUrl: string;
  const gateways: RunningGateway[] = [];
  const clients: Client[] = [];

  const whoami = async (client: Client) =>
    textOf(await client.callTool({ name: "tracker__whoami", arguments: {} }));

  before(async () => {
    parties = await startParties(TTL_S);
    ({ upstream } = parties);
    const port = await freePort();
    redis = await startRedis(port);
    redisUrl = `redis://127.0.0.1:${port}`;
    for (const name of ["one", "two"]) {
      const yaml = "gateway:\n" +
        `  cluster: { redis: "${redisUrl}", instance: ${name}, ` +
        `stateKey: "a-state-key-of-at-least-32-characters" }\n` +
        `  secrets: { key: "the-same-secrets-key-on-every-instance" }\n` +
        `  auth:\n    tokens:\n      - { name: alice, token: ${ALICE} }\n` +
        `servers:\n  tracker: { url: ${
          JSON.stringify(upstream.url)
        }, oauth: { mode: per-user } }\n`;
      const { gw, base } = await startFromFile(configFile(`mcpgw-oauth-cluster-${name}-`, yaml));
      gateways.push(gw);
      clients.push(await authedHttpClient(base, ALICE));
    }
  });
  after(async () => {
    for (const c of clients) await c.close();
    for (const g of gateways) await g.stop();
    await redis?.stop();
    await parties?.stop();
  });

  it("a login through one instance serves the identity on the other", async () => {
    const text = await whoami(clients[0]!);
    const link = /open (http\S+\/oauth\/link\?t=[A-Za-z0-9_-]+)/.exec(text)?.[1];
    assert.ok(link, text);
    assert.equal((await browserLogin(link, "alice-sub")).status, 200);
    assert.equal(await whoami(clients[1]!), "alice-sub");
    assert.equal(await whoami(clients[0]!), "alice-sub");
  });

  it("Redis holds the credential sealed: no token in clear text", async () => {
    const r = new Redis(redisUrl);
    try {
      const keys = await r.keys("mcpgw:cred:*");
      assert.ok(keys.some((k) => k.startsWith("mcpgw:cred:tracker/")), keys.join(","));
      for (const k of keys.filter((k) => !k.includes(":lock:"))) {
        const v = (await r.get(k)) ?? "";
        assert.ok(!/eyJ|access_token|refresh_token|alice/.test(v), v);
      }
    } finally {
      r.disconnect();
    }
  });

  it("after expiry both instances refreshing at once refresh once", async () => {
    await new Promise((r) => setTimeout(r, TTL_S * 1000 + 500));
    const answers = await Promise.all([
      whoami(clients[0]!),
      whoami(clients[1]!),
      whoami(clients[0]!),
      whoami(clients[1]!),
    ]);
    assert.deepEqual(answers, ["alice-sub", "alice-sub", "alice-sub", "alice-sub"]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await whoami(clients[1]!), "alice-sub");
    assert.equal(await whoami(clients[0]!), "alice-sub");
  });
});
