/**
 * The `POST /mcp` pre-dispatch answers exactly as hono's middleware chain does: two in-process
 * apps over one gateway, one with the pre-dispatch (`mcpGuard`) and one without, get the same
 * requests and must give the same status, body and headers — refusals by origin, host, auth,
 * rate and body size, and the session layer's own answers.
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import { createApp, type GatewayApp } from "../../src/http/app.ts";
import { securityChain } from "../../src/http/security/mod.ts";
import { SessionRegistry } from "../../src/http/sessions.ts";
import { createLogger } from "../../src/shared/log.ts";

const TOKEN = "pre-dispatch-token-0123456789";
const YAML = `gateway:
  auth:
    tokens: [{ name: a, token: "${TOKEN}" }]
    rateLimit: { perMinute: 1, burst: 3 }
  limits: { requestBody: 64 }
servers: {}
`;

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | null>;
}

async function answerOf(res: Response): Promise<Answer> {
  const headers: Record<string, string | null> = {};
  for (const h of ["content-type", "www-authenticate", "retry-after", "mcp-session-id"]) {
    headers[h] = res.headers.get(h);
  }
  return { status: res.status, body: await res.text(), headers };
}

describe("the POST /mcp pre-dispatch answers as the middleware chain does", () => {
  const config = parseConfig(YAML, { file: join(tmpdir(), "gateway.yaml") });
  const gateway = new Gateway(config, createLogger("test"));
  const sessions = new SessionRegistry(gateway, { maxSessions: 10, maxBodyBytes: 64 });
  let lean: GatewayApp;
  let chain: GatewayApp;
  let chainRuns = 0;
  before(() => {
    const withGuard = securityChain(gateway, "127.0.0.1");
    lean = createApp({ gateway, sessions, ...withGuard });
    const plain = securityChain(gateway, "127.0.0.1");
    chain = createApp({
      gateway,
      sessions,
      middleware: [async (_c, next) => {
        chainRuns++;
        await next();
      }, ...plain.middleware],
    });
  });
  after(() => sessions.closeAll());

  const post = (app: GatewayApp, headers: Record<string, string>, body = "{}") => {
    const all: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": "no-such-session",
      "content-length": String(new TextEncoder().encode(body).length),
      ...headers,
    };
    // An empty value stands for "no such header" (a request without a session).
    for (const [k, v] of Object.entries(all)) if (v === "") delete all[k];
    return app.request("http://127.0.0.1:8787/mcp", { method: "POST", headers: all, body });
  };

  const same = async (headers: Record<string, string>, body?: string) => {
    const before = chainRuns;
    const a = await answerOf(await post(lean, headers, body));
    const b = await answerOf(await post(chain, headers, body));
    assert.equal(chainRuns, before + 1, "only the app without the pre-dispatch ran hono's chain");
    assert.deepEqual(a, b);
    return a;
  };
  const bearer = { authorization: `Bearer ${TOKEN}` };

  it("without a token: 401 with the challenge", async () => {
    const a = await same({});
    assert.equal(a.status, 401);
    assert.ok(a.headers["www-authenticate"]);
  });

  it("with a wrong token: 401", async () => {
    assert.equal((await same({ authorization: "Bearer wrong" })).status, 401);
  });

  it("from a foreign origin, before auth: 403", async () => {
    assert.equal((await same({ origin: "http://evil.example" })).status, 403);
  });

  it("for a foreign host: 403", async () => {
    assert.equal((await same({ ...bearer, host: "evil.example" })).status, 403);
  });

  it("over the body limit, after auth: 413", async () => {
    assert.equal((await same(bearer, JSON.stringify({ pad: "x".repeat(100) }))).status, 413);
  });

  it("an admitted request reaches the session layer (unknown session: 404)", async () => {
    const a = await same(bearer);
    assert.equal(a.status, 404);
    assert.match(a.body, /Session not found/);
  });

  it("a request without a session takes it too (both eras' hot path)", async () => {
    const a = await same({ ...bearer, "mcp-session-id": "" });
    assert.equal(a.status, 400);
    assert.match(a.body, /first request must be initialize/);
  });

  it("over the token's rate: 429 with Retry-After", async () => {
    // Burst 3: the three requests above that passed auth, then the refusal.
    const a = await same(bearer);
    assert.equal(a.status, 429);
    assert.ok(a.headers["retry-after"]);
  });
});
