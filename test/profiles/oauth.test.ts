/**
 * OAuth identities limited to profiles (`gateway.auth.oauth.profiles`): a claim's values, or the
 * granted scopes, map to the profiles an identity may use, exactly as a configured token's
 * `profiles:` does (403 elsewhere, plain `/mcp` included). Tokens come from a real oidc-provider:
 * issued by its token endpoint (scopes), or signed with its published key (a `groups` claim).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { postModern } from "../protocol/_modern.ts";
import { AUDIENCE, now, startProvider, type TestProvider } from "../security/_oidc.ts";
import { INITIALIZE, MCP_HEADERS } from "../security/_http.ts";
import { config, legacyClient, modernClient, namesOf } from "./_profiles.ts";

const SCOPES = "tools:echo tools:all";
const ECHO = { id: "echo-agent", secret: "echo-secret-0123456789abcdef", scope: "tools:echo" };
const ALL = { id: "all-agent", secret: "all-secret-0123456789abcdef", scope: "tools:all" };

/** The profile tests' config with `gateway.auth.oauth` trusting `issuer`, `profiles` inline. */
const withOAuth = (issuer: string, profiles: string) =>
  config().replace(
    "    tokens:\n",
    `    oauth: { issuer: ${issuer}, audience: ${AUDIENCE}, profiles: ${profiles} }\n    tokens:\n`,
  );

describe("OAuth identities limited to profiles", () => {
  let provider: TestProvider;
  /** Maps the `groups` claim; unmapped identities are not limited. */
  let byClaim: TestGateway;
  /** Maps the granted scopes; unmapped identities get no endpoint (`default: []`). */
  let byScope: TestGateway;

  const groups = (sub: string, values: unknown) =>
    provider.sign({
      iss: provider.issuer,
      aud: AUDIENCE,
      sub,
      groups: values,
      iat: now(),
      exp: now() + 300,
    });
  const initialize = async (gw: TestGateway, path: string, token: string) => {
    const res = await fetch(`${gw.url}${path}`, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: INITIALIZE,
    });
    const text = await res.text();
    return { status: res.status, text };
  };

  before(async () => {
    provider = await startProvider([ECHO, ALL], SCOPES);
    byClaim = await startTestGateway(
      withOAuth(provider.issuer, "{ claim: groups, map: { eng: [coding], ops: [support] } }"),
    );
    byScope = await startTestGateway(
      withOAuth(provider.issuer, '{ map: { "tools:echo": [support] }, default: [] }'),
    );
  });
  after(async () => {
    await Promise.all([byClaim?.stop(), byScope?.stop()]);
    await provider?.stop();
  });

  it("a mapped claim value limits the identity to its profiles, in both eras", async () => {
    const eng = await groups("erin", ["eng"]);
    for (const path of ["/mcp", "/mcp/support", "/mcp/nope"]) {
      const res = await initialize(byClaim, path, eng);
      assert.equal(res.status, 403, path);
      const body = JSON.parse(res.text) as { error: { message: string } };
      assert.match(body.error.message, /token "oauth:user:erin" may not use/, path);
    }
    const modernRefused = await postModern(byClaim.url, eng, "tools/list", {});
    assert.equal(modernRefused.status, 403);
    await modernRefused.body?.cancel();
    const legacy = await legacyClient(byClaim.url, "/mcp/coding", eng);
    const modern = await modernClient(byClaim.url, "/mcp/coding", eng);
    try {
      const names = namesOf(await legacy.listTools());
      assert.ok(names.includes("alpha__echo"), names.join(","));
      assert.ok(!names.some((n) => n.startsWith("beta__")), names.join(","));
      assert.deepEqual(namesOf(await modern.listTools()), names);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it("several values give the union of their profiles", async () => {
    const both = await groups("olga", ["eng", "ops", "sales"]);
    assert.equal((await initialize(byClaim, "/mcp/coding", both)).status, 200);
    assert.equal((await initialize(byClaim, "/mcp/support", both)).status, 200);
    assert.equal((await initialize(byClaim, "/mcp", both)).status, 403);
  });

  it("an identity whose values map to nothing is not limited (no default)", async () => {
    for (const values of [["sales"], "constructor", undefined]) {
      const token = await groups("sam", values);
      assert.equal((await initialize(byClaim, "/mcp", token)).status, 200, String(values));
    }
  });

  it("maps granted scopes of issued tokens; default: [] leaves the others no endpoint", async () => {
    const echo = await provider.token(ECHO, AUDIENCE);
    assert.equal((await initialize(byScope, "/mcp/support", echo)).status, 200);
    assert.equal((await initialize(byScope, "/mcp", echo)).status, 403);
    const all = await provider.token(ALL, AUDIENCE);
    for (const path of ["/mcp", "/mcp/support", "/mcp/coding"]) {
      assert.equal((await initialize(byScope, path, all)).status, 403, path);
    }
  });

  it("a mapping to a profile that does not exist is a config error naming its path", () => {
    assert.throws(
      () =>
        parseConfig(
          withOAuth("https://auth.example.test", "{ claim: groups, map: { eng: [codin] } }"),
        ),
      /gateway\.auth\.oauth\.profiles\.map\.eng\[0\].*unknown profile "codin"/s,
    );
    assert.throws(
      () => parseConfig(withOAuth("https://auth.example.test", "{ map: {}, extra: 1 }")),
      /extra/,
    );
  });

  it("a reload that changes the mapping applies at the identity's next request", async () => {
    const eng = await groups("rita", ["eng"]);
    const session = await legacyClient(byClaim.url, "/mcp/coding", eng);
    try {
      assert.ok(namesOf(await session.listTools()).includes("alpha__echo"));
      writeFileSync(
        join(byClaim.dir, "gateway.yaml"),
        withOAuth(provider.issuer, "{ claim: groups, map: { eng: [support] } }"),
      );
      assert.equal(await byClaim.running.reload("test"), true);
      await assert.rejects(
        session.listTools(),
        (err: Error) => err.message.replaceAll("\\", "").includes('may not use profile "coding"'),
      );
      assert.equal((await initialize(byClaim, "/mcp/support", eng)).status, 200);
    } finally {
      await session.close().catch(() => {});
    }
  });
});
