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
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { textOf } from "../../_helpers/gateway.ts";
import { freePort, missingTools, type Proc, startRedis } from "../../cluster/_cluster.ts";
import { authedHttpClient } from "../../security/_http.ts";
import { browserLogin, configFile, type Parties, startFromFile, startParties } from "./_setup.ts";

const TTL_S = 3;
const ALICE = "alice-token-0123456789";
const OPS = "ops-token-0123456789ab";
const skip = missingTools();

describe("upstream OAuth credentials in a cluster", { timeout: 120_000, skip }, () => {
  let parties: Parties;
  let upstream: Parties["upstream"];
  let redis: Proc;
  let redisUrl: string;
  const gateways: RunningGateway[] = [];
  const clients: Client[] = [];
  const bases: string[] = [];

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
        `      - { name: ops, token: ${OPS}, admin: true }\n` +
        `servers:\n  tracker: { url: ${
          JSON.stringify(upstream.url)
        }, oauth: { mode: per-user } }\n` +
        `  team: { url: ${JSON.stringify(upstream.url)}, oauth: { mode: shared } }\n`;
      const { gw, base } = await startFromFile(configFile(`mcpgw-oauth-cluster-${name}-`, yaml));
      gateways.push(gw);
      bases.push(base);
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
        // The ciphertext is random base64, so a short marker like "eyJ" turns up in it about
        // once in a hundred runs: look for tokens in the clear fields and in the decoded bytes.
        const sealed = JSON.parse(v) as { data?: string };
        assert.equal(typeof sealed.data, "string", v);
        const clear = JSON.stringify({ ...sealed, data: "" });
        const opened = atob(sealed.data!);
        for (const text of [clear, opened]) {
          assert.ok(!/eyJ|access_token|refresh_token|alice/.test(text), v);
        }
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

  /** What `call` answers within `ms`: polled until `done` holds, else the last answer. */
  const within = async (ms: number, call: () => Promise<string>, done: (t: string) => boolean) => {
    const deadline = Date.now() + ms;
    let last = await call();
    while (!done(last) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      last = await call();
    }
    return last;
  };
  const teamWhoami = async (client: Client) =>
    textOf(
      await client.callTool({ name: "team__whoami", arguments: {} }).catch((e) => ({
        content: [{ type: "text", text: String(e) }],
      })),
    );

  it("a shared login through one instance is used by the other within a second", async () => {
    assert.match(await teamWhoami(clients[1]!), /needs a login/);
    const res = await fetch(`${bases[0]}/oauth/login/team`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPS}` },
    });
    assert.equal(res.status, 200);
    const { authorizationUrl } = await res.json() as { authorizationUrl: string };
    assert.equal((await browserLogin(authorizationUrl, "team-sub")).status, 200);
    const started = Date.now();
    const answer = await within(1000, () => teamWhoami(clients[1]!), (t) => t === "team-sub");
    assert.equal(answer, "team-sub", `instance two after ${Date.now() - started} ms`);
  });

  it("a disconnect through one instance is used by the other within a second", async () => {
    const disconnect = async () => {
      const res = await fetch(`${bases[0]}/oauth/credentials/tracker`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${ALICE}` },
      });
      assert.ok(res.ok, String(res.status));
      await res.body?.cancel();
    };
    // A fresh login first: its access token is good for seconds, so only the news of the
    // disconnect (not an expiry) can stop instance two from using it.
    await disconnect();
    const text = await whoami(clients[0]!);
    const link = /open (http\S+\/oauth\/link\?t=[A-Za-z0-9_-]+)/.exec(text)?.[1];
    assert.ok(link, text);
    assert.equal((await browserLogin(link, "alice-sub")).status, 200);
    const served = await within(1000, () => whoami(clients[1]!), (t) => t === "alice-sub");
    assert.equal(served, "alice-sub");
    await disconnect();
    const answer = await within(1000, () => whoami(clients[1]!), (t) => /needs a login/.test(t));
    assert.match(answer, /needs a login/);
  });
});
