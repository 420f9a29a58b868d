import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { parseConfig } from "../../src/config/mod.ts";
import { globsOf, OAuthVerifier } from "../../src/http/security/oauth/mod.ts";
import { GatewayError } from "../../src/shared/errors.ts";
import { createLogger, setLogLevel, setLogSink } from "../../src/shared/log.ts";
import { startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import { AUDIENCE, b64url, now, oauthYaml, startProvider, type TestProvider } from "./_oidc.ts";
import { authedHttpClient, INITIALIZE, MCP_HEADERS } from "./_http.ts";

const HINT =
  'resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"';
const STATIC = "static-token-0123456789abcdef";
const SCOPES = "tools:echo tools:all tools:other";
const ECHO = { id: "echo-agent", secret: "echo-secret-0123456789abcdef", scope: "tools:echo" };
const ADMIN = { id: "admin-agent", secret: "admin-secret-0123456789abcdef", scope: "tools:all" };
const SHORT = { ...ECHO, id: "short-agent", ttl: 1 };
const OTHER = { id: "other-agent", secret: "other-secret-0123456789abcdef", scope: "tools:other" };

const yaml = (issuer: string) =>
  oauthYaml(issuer, {
    auth: `    tokens:\n      - { name: static, token: "${STATIC}", tools: ["echo__pid"] }\n`,
    oauth: '      clockTolerance: 0s\n      resourceMetadata: { resource_name: "test gateway" }\n',
  });

/** An initialize POST to /mcp with `authorization`: status (200 once in), challenge, body. */
async function post(base: string, authorization?: string) {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...(authorization ? { authorization } : {}) },
    body: INITIALIZE,
  });
  const body = await res.text();
  return { status: res.status, challenge: res.headers.get("www-authenticate") ?? "", body };
}

describe("OAuth 2.1 resource-server mode", () => {
  let provider: TestProvider;
  let rogue: TestProvider;
  let gw: TestGateway;
  /** The same gateway with the default 30 s cooldown between key fetches. */
  let slow: TestGateway;
  const clients: Client[] = [];
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: provider.issuer,
    aud: AUDIENCE,
    sub: "hand-made",
    scope: "tools:echo",
    iat: now(),
    exp: now() + 300,
    ...extra,
  });

  before(async () => {
    [provider, rogue] = await Promise.all([
      startProvider([ECHO, ADMIN, SHORT, OTHER], SCOPES),
      startProvider([ECHO], SCOPES),
    ]);
    gw = await startTestGateway(yaml(provider.issuer));
    slow = await startTestGateway(yaml(provider.issuer).replace("jwksCooldown: 0s", ""));
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await Promise.all([gw?.stop(), slow?.stop()]);
    await Promise.all([provider?.stop(), rogue?.stop()]);
  });

  it("serves the protected resource metadata without auth, bare and path-suffixed", async () => {
    for (const path of ["", "/mcp"]) {
      const res = await fetch(`${gw.url}/.well-known/oauth-protected-resource${path}`);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), {
        resource: AUDIENCE,
        authorization_servers: [provider.issuer],
        scopes_supported: ["tools:echo", "tools:all"],
        bearer_methods_supported: ["header"],
        resource_name: "test gateway",
      });
    }
  });

  it("points every 401 at the metadata, with invalid_token once a token was sent", async () => {
    const none = await post(gw.url);
    assert.equal(none.status, 401);
    assert.equal(none.challenge, `Bearer realm="mcp-gateway", ${HINT}`);
    const unknown = await post(gw.url, "Bearer not-a-known-token-0123456789");
    assert.equal(unknown.status, 401);
    assert.match(unknown.challenge, /^Bearer realm="mcp-gateway", error="invalid_token", /);
    assert.ok(unknown.challenge.endsWith(HINT), unknown.challenge);
  });

  it("lets a token call the tools its scope maps to and refuses the others", async () => {
    const client = await authedHttpClient(gw.url, await provider.token(ECHO, AUDIENCE));
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(names, ["echo__echo"]);
    const r = await client.callTool({ name: "echo__echo", arguments: { text: "oauth" } });
    assert.deepEqual(JSON.parse(textOf(r)), { text: "oauth" });
    await assert.rejects(
      client.callTool({ name: "echo__pid", arguments: {} }),
      (err: Error & { code?: number }) => err.code === -32003,
    );
    assert.equal(gw.running.gateway.config.gateway.oauth?.issuer, provider.issuer);
  });

  it("names the identity after the token's subject and unions the globs of its scopes", async () => {
    const admin = await authedHttpClient(gw.url, await provider.token(ADMIN, AUDIENCE));
    clients.push(admin);
    const calls: { tokenName: string | null }[] = [];
    gw.running.gateway.calls.observeCalls((c) => calls.push(c));
    const r = await admin.callTool({ name: "echo__pid", arguments: {} });
    assert.match(textOf(r), /^\d+$/);
    assert.equal(calls.at(-1)?.tokenName, "oauth:client:admin-agent");
  });

  it("answers 403 insufficient_scope to a valid token whose scopes map to no tool", async () => {
    const res = await post(gw.url, `Bearer ${await provider.token(OTHER, AUDIENCE)}`);
    assert.equal(res.status, 403);
    assert.match(res.challenge, /error="insufficient_scope"/);
    assert.match(res.challenge, /scope="tools:echo tools:all"/);
    assert.ok(res.challenge.endsWith(HINT));
  });

  it("refuses an expired token", async () => {
    const token = await provider.token(SHORT, AUDIENCE);
    assert.equal((await post(gw.url, `Bearer ${token}`)).status, 200);
    const exp = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).exp;
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 50));
    const res = await post(gw.url, `Bearer ${token}`);
    assert.equal(res.status, 401);
    assert.match(res.challenge, /error="invalid_token", error_description="it has expired"/);
  });

  it("refuses a token issued for another resource", async () => {
    const token = await provider.token(ECHO, "https://other.example.test/mcp");
    const res = await post(gw.url, `Bearer ${token}`);
    assert.equal(res.status, 401);
    assert.match(res.challenge, /error_description="it is not meant for this resource \(aud\)"/);
  });

  it("refuses a token naming another issuer, even when signed with the right key", async () => {
    const token = await provider.sign(claims({ iss: "https://evil.example.test" }));
    const res = await post(gw.url, `Bearer ${token}`);
    assert.equal(res.status, 401);
    assert.match(res.challenge, /it was issued by another issuer/);
    const control = await post(gw.url, `Bearer ${await provider.sign(claims())}`);
    assert.equal(control.status, 200, "the same hand-made token with the right issuer passes");
  });

  it("refuses alg none and HS256 tokens before fetching any key", async () => {
    const unsigned = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims())}.`;
    const hs = `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url(claims())}.${
      Buffer.from("x".repeat(32)).toString("base64url")
    }`;
    for (const token of [unsigned, hs]) {
      const res = await post(gw.url, `Bearer ${token}`);
      assert.equal(res.status, 401);
      assert.match(res.challenge, /its signing algorithm is not accepted/);
    }
  });

  it("refuses a token signed by a key the issuer does not publish", async () => {
    const forged = await rogue.sign(claims());
    const res = await post(gw.url, `Bearer ${forged}`);
    assert.equal(res.status, 401);
    assert.match(res.challenge, /it was signed by a key the issuer does not publish/);
    const real = await rogue.token(ECHO, AUDIENCE);
    assert.equal((await post(gw.url, `Bearer ${real}`)).status, 401);
  });

  it("refuses tokens without exp, with a future nbf, or with a bad signature", async () => {
    const { exp: _, ...noExp } = claims();
    const cases: [string, RegExp][] = [
      [await provider.sign(noExp), /no expiry/],
      [await provider.sign(claims({ nbf: now() + 3600 })), /not valid yet/],
    ];
    const good = await provider.sign(claims());
    const [h, p] = good.split(".");
    cases.push([`${h}.${p}.${good.split(".")[2]!.slice(0, -4)}AAAA`, /signature does not verify/]);
    for (const [token, why] of cases) {
      const res = await post(gw.url, `Bearer ${token}`);
      assert.equal(res.status, 401);
      assert.match(res.challenge, why);
    }
  });

  it("accepts a token signed with a rotated-in key after refetching the keys", async () => {
    const before = await provider.token(ECHO, AUDIENCE);
    assert.equal((await post(gw.url, `Bearer ${before}`)).status, 200);
    assert.equal((await post(slow.url, `Bearer ${before}`)).status, 200);
    const kid = await provider.rotate();
    const after = await provider.token(ECHO, AUDIENCE);
    const header = JSON.parse(Buffer.from(after.split(".")[0]!, "base64url").toString());
    assert.equal(header.kid, kid, "the provider signs with the new key");
    assert.equal((await post(gw.url, `Bearer ${after}`)).status, 200);
    assert.equal((await post(gw.url, `Bearer ${before}`)).status, 200, "old key still published");
  });

  it("fetches the keys again for an unknown kid no sooner than the cooldown", async () => {
    // `slow` cached the keys in the previous test, before the rotation: within its 30 s
    // cooldown the rotated-in key stays unknown to it, so forged kids cannot flood the issuer.
    const after = await provider.token(ECHO, AUDIENCE);
    const res = await post(slow.url, `Bearer ${after}`);
    assert.equal(res.status, 401);
    assert.match(res.challenge, /signed by a key the issuer does not publish/);
  });

  it("keeps configured bearer tokens working beside OAuth", async () => {
    const client = await authedHttpClient(gw.url, STATIC);
    clients.push(client);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["echo__pid"]);
  });

  it("uses a configured jwksUri as is, and refuses metadata naming another issuer", async () => {
    const oauth = gw.running.gateway.config.gateway.oauth!;
    const log = createLogger("test");
    const token = await provider.token(ECHO, AUDIENCE);
    const direct = new OAuthVerifier({ ...oauth, jwksUri: `${provider.issuer}/jwks` }, log);
    assert.equal((await direct.verify(token)).name, "oauth:client:echo-agent");
    // The provider's metadata names http://127.0.0.1:PORT; asked as localhost it is not ours.
    const alias = provider.issuer.replace("127.0.0.1", "localhost");
    const misled = new OAuthVerifier({ ...oauth, issuer: alias }, log);
    await assert.rejects(
      misled.verify(token),
      (err) =>
        err instanceof GatewayError && err.code === "UPSTREAM_UNAVAILABLE" &&
        err.message.includes("names issuer"),
    );
  });

  it("applies a reloaded scope mapping to the next session of the same token", async () => {
    const token = await provider.token(ECHO, AUDIENCE);
    const first = await authedHttpClient(gw.url, token);
    clients.push(first);
    assert.deepEqual((await first.listTools()).tools.map((t) => t.name), ["echo__echo"]);
    const changed = yaml(provider.issuer).replace(
      '"tools:echo": ["echo__echo"]',
      '"tools:echo": ["echo__echo", "echo__pid"]',
    );
    writeFileSync(join(gw.dir, "gateway.yaml"), changed);
    assert.equal(await gw.running.reload("test"), true);
    const second = await authedHttpClient(gw.url, token);
    clients.push(second);
    const names = (await second.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ["echo__echo", "echo__pid"]);
  });

  it("never writes a token into logs or answers", async () => {
    const lines: string[] = [];
    const restore = setLogSink((line) => lines.push(line));
    setLogLevel("debug");
    const tokens = [await provider.sign(claims({ iss: "https://evil.example.test" }))];
    tokens.push(await rogue.sign(claims()), await provider.token(OTHER, AUDIENCE));
    const answers: string[] = [];
    try {
      for (const t of tokens) {
        const res = await post(gw.url, `Bearer ${t}`);
        answers.push(res.body, res.challenge);
      }
    } finally {
      setLogLevel((process.env.TEST_LOG_LEVEL ?? "silent") as "silent");
      restore();
    }
    assert.ok(lines.some((l) => l.includes("access token refused")), "refusals are logged");
    for (const t of tokens) {
      const signature = t.split(".")[2]!;
      for (const text of [...lines, ...answers]) assert.ok(!text.includes(signature));
    }
  });
});

describe("OAuth config and verifier", () => {
  const base = `
gateway:
  auth:
    oauth:
      issuer: https://auth.example.test
      audience: ${AUDIENCE}
`;
  const problem = (text: string) => {
    try {
      parseConfig(text);
    } catch (err) {
      assert.ok(err instanceof GatewayError && err.code === "CONFIG_INVALID");
      return JSON.stringify(err.data);
    }
    assert.fail("the config was accepted");
  };

  it("accepts OAuth alone, with defaults", () => {
    const config = parseConfig(base);
    assert.deepEqual(config.gateway.tokens, []);
    assert.deepEqual(config.gateway.oauth?.algorithms, ["RS256", "ES256"]);
    assert.equal(config.gateway.oauth?.clockToleranceMs, 30_000);
    assert.equal(config.gateway.oauth?.jwksUri, null);
  });

  it("refuses none and HS* algorithms at config time", () => {
    for (const alg of ["none", "HS256"]) {
      const msg = problem(`${base}      algorithms: [${alg}]\n`);
      assert.match(msg, /none and HS\* are refused/);
      assert.match(msg, /gateway\.auth\.oauth\.algorithms/);
    }
  });

  it("refuses auth with neither tokens nor oauth, and plain-http issuers beyond loopback", () => {
    assert.match(problem("gateway:\n  auth: {}\n"), /expected tokens, oauth, or both/);
    const http = base.replace("https://auth.example.test", "http://auth.example.test");
    assert.match(problem(http), /expected an https URL/);
  });

  it("maps scopes and claims to globs, ignoring inherited keys", () => {
    const config = {
      scopes: { "files:read": ["files__read*"], admin: ["*"] },
      claims: { roles: { ops: ["ops__*"] } },
    };
    assert.deepEqual(globsOf({ scp: ["files:read"], roles: ["ops", "x"] }, config), [
      "files__read*",
      "ops__*",
    ]);
    assert.deepEqual(globsOf({ scope: "constructor __proto__ toString" }, config), []);
    assert.equal(globsOf({ scope: "anything" }, { scopes: null, claims: {} }), null);
  });

  it("answers 503 rather than 401 when the issuer's metadata cannot be read", async () => {
    const config = parseConfig(base.replace("https://auth.example.test", "http://127.0.0.1:9"));
    const verifier = new OAuthVerifier(config.gateway.oauth!, createLogger("test"));
    const token = `${b64url({ alg: "ES256", kid: "k" })}.${b64url({ sub: "x" })}.AAAA`;
    await assert.rejects(
      verifier.verify(token),
      (err) => err instanceof GatewayError && err.code === "UPSTREAM_UNAVAILABLE",
    );
  });
});
