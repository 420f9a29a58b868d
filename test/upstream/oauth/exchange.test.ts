/**
 * `oauth: mode: exchange`: a client comes with an OAuth access token for the gateway (from
 * `gateway.auth.oauth`'s issuer); the gateway exchanges it (RFC 8693, a grant the test's
 * oidc-provider registers) for a token whose audience is the upstream, and the upstream —
 * which records every bearer token it is shown — never sees the client's own token. Both doors:
 * a 2026-07-28 request's token is exchanged as a 2025 session's is.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { textOf } from "../../_helpers/gateway.ts";
import { clientCredentialsToken } from "../../_helpers/oauth.ts";
import { postModern } from "../../protocol/_modern.ts";
import { authedHttpClient } from "../../security/_http.ts";
import { configFile, type Parties, seenTokens, startFromFile, startParties } from "./_setup.ts";

const GATEWAY_AUDIENCE = "https://gateway.test/mcp";
const GATEWAY_CLIENT = { id: "the-gateway", secret: "gateway-secret-0123456789" };
const APPS = [
  { id: "app-one", secret: "app-one-secret-0123456789" },
  { id: "app-two", secret: "app-two-secret-0123456789" },
  // Seen on the 2026-07-28 door only: nothing a 2025 session presented is cached for it.
  { id: "app-three", secret: "app-three-secret-0123456789" },
];

describe("upstream OAuth, exchange mode", { timeout: 120_000 }, () => {
  let parties: Parties;
  let gw: RunningGateway;
  let base: string;
  const open: Client[] = [];

  /** A client_credentials access token of `app` for the gateway. */
  const tokenOf = (app: { id: string; secret: string }) =>
    clientCredentialsToken(parties.as.issuer, app, GATEWAY_AUDIENCE, "read");
  const clientWith = async (token: string) => {
    const client = await authedHttpClient(base, token);
    open.push(client);
    return client;
  };

  before(async () => {
    parties = await startParties(300, [GATEWAY_CLIENT, ...APPS]);
    const yaml = "gateway:\n  auth:\n    oauth:\n" +
      `      issuer: ${parties.as.issuer}\n      audience: ${GATEWAY_AUDIENCE}\n` +
      "servers:\n  tracker:\n" +
      `    url: ${JSON.stringify(parties.upstream.url)}\n` +
      `    oauth: { mode: exchange, clientId: ${GATEWAY_CLIENT.id}, ` +
      `clientSecret: ${GATEWAY_CLIENT.secret} }\n`;
    ({ gw, base } = await startFromFile(configFile("mcpgw-exchange-", yaml)));
  });
  after(async () => {
    for (const c of open) await c.close();
    await gw?.stop();
    await parties?.stop();
  });

  it("calls the upstream with an exchanged token; the client's own never reaches it", async () => {
    const one = await tokenOf(APPS[0]!);
    const two = await tokenOf(APPS[1]!);
    const [a, b] = [await clientWith(one), await clientWith(two)];
    const answers = await Promise.all([
      a.callTool({ name: "tracker__whoami", arguments: {} }),
      b.callTool({ name: "tracker__whoami", arguments: {} }),
      a.callTool({ name: "tracker__whoami", arguments: {} }),
    ]);
    assert.deepEqual(answers.map(textOf), ["app-one", "app-two", "app-one"]);
    const seen = await seenTokens(parties.upstream.base);
    assert.ok(seen.length > 0);
    assert.ok(!seen.includes(one) && !seen.includes(two), "a client token reached the upstream");
    // Each token the upstream saw was minted for it: its audience is the upstream.
    for (const t of seen) {
      const claims = JSON.parse(atob(t.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
      assert.equal(claims.aud, parties.upstream.url);
    }
  });

  it("the exchanged token is cached per subject until it expires", async () => {
    const before = (await seenTokens(parties.upstream.base)).length;
    const a = await clientWith(await tokenOf(APPS[0]!));
    assert.equal(textOf(await a.callTool({ name: "tracker__whoami", arguments: {} })), "app-one");
    const fresh = (await seenTokens(parties.upstream.base)).slice(before);
    assert.ok(fresh.length > 0);
    assert.equal(new Set(fresh).size, 1, "one exchanged token served the subject's requests");
  });

  it("exchanges the token of a 2026-07-28 request too, never passing it on", async () => {
    const token = await tokenOf(APPS[2]!);
    const res = await postModern(base, token, "tools/call", {
      name: "tracker__whoami",
      arguments: {},
    });
    assert.equal(res.status, 200);
    const body = await res.json() as { result?: { content?: { text?: string }[] } };
    assert.equal(body.result?.content?.[0]?.text, "app-three", JSON.stringify(body));
    assert.ok(!(await seenTokens(parties.upstream.base)).includes(token));
  });
  it("an upstream 401 drops the exchanged token: one new exchange, one retry, then the error", async () => {
    const refuse = (q = "") => fetch(`${parties.upstream.base}/__refuse${q}`, { method: "POST" });
    const a = await clientWith(await tokenOf(APPS[1]!));
    assert.equal(textOf(await a.callTool({ name: "tracker__whoami", arguments: {} })), "app-two");
    const old = new Set(await seenTokens(parties.upstream.base));
    // The upstream revokes every token it was shown: the cached one is refused once, and the
    // call goes through on a freshly exchanged token.
    await (await refuse()).body?.cancel();
    assert.equal(textOf(await a.callTool({ name: "tracker__whoami", arguments: {} })), "app-two");
    const after = (await seenTokens(parties.upstream.base)).filter((t) => !old.has(t));
    assert.equal(after.length > 0, true, "a new token was exchanged");
    // A server that refuses every token: one new exchange and one retry, then the call fails.
    await (await refuse("?all=1")).body?.cancel();
    const before = (await seenTokens(parties.upstream.base)).length;
    const failed = await a.callTool({ name: "tracker__whoami", arguments: {} }).then(
      (r) => JSON.stringify(r),
      (e) => String(e),
    );
    assert.match(failed, /refused a freshly exchanged token too \(401 invalid_token\)/, failed);
    const tried = (await seenTokens(parties.upstream.base)).slice(before);
    assert.equal(tried.length, 2, `one retry on a new token, not ${tried.length} attempts`);
    assert.notEqual(tried[0], tried[1], "the retry carried a newly exchanged token");
    // It was an error, not "needs login": once the server accepts tokens again, calls work
    // (after the connection's ordinary restart).
    await (await refuse("?none=1")).body?.cancel();
    let answer = "";
    for (let i = 0; i < 50 && answer !== "app-two"; i++) {
      answer = textOf(await a.callTool({ name: "tracker__whoami", arguments: {} }));
      if (answer !== "app-two") await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(answer, "app-two");
  });
});
