/**
 * The one security chain (`src/http/security/chain.ts`) judges every request alike: the lean
 * `POST /mcp` pre-dispatch and hono's middleware (two in-process apps over one gateway, one with
 * the pre-dispatch and one given the chain as plain middleware) give the same status, body and
 * headers — refusals by origin, host, auth, rate and body size, and the session layer's own
 * answers — and every route (`/mcp` of either length form, `/sse`, `/message`, the status
 * routes, unknown paths) gets the same refusals.
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import { createApp, type GatewayApp } from "../../src/http/app.ts";
import { securityChain } from "../../src/http/security/mod.ts";
import { SessionRegistry, sseDoor } from "../../src/session/legacy/mod.ts";
import { createLogger } from "../../src/shared/log.ts";

const TOKEN = "pre-dispatch-token-0123456789";
const RATE_TOKEN = "chain-rate-token-0123456789";
const YAML = `gateway:
  auth:
    tokens: [{ name: a, token: "${TOKEN}" }, { name: r, token: "${RATE_TOKEN}" }]
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

describe("the POST /mcp pre-dispatch answers as hono's middleware does: one chain", () => {
  const config = parseConfig(YAML, { file: join(tmpdir(), "gateway.yaml") });
  const gateway = new Gateway(config, createLogger("test"));
  const sessions = new SessionRegistry(gateway, { maxSessions: 10, maxBodyBytes: 64 });
  let lean: GatewayApp;
  let chain: GatewayApp;
  let chainRuns = 0;
  before(() => {
    lean = createApp({
      gateway,
      doors: [sseDoor(sessions), sessions],
      chain: securityChain(gateway, "127.0.0.1"),
    });
    // The same chain as plain middleware: no pre-dispatch, every request through hono.
    const plain = securityChain(gateway, "127.0.0.1");
    chain = createApp({
      gateway,
      doors: [sseDoor(sessions), sessions],
      middleware: [async (_c, next) => {
        chainRuns++;
        await next();
      }, plain.middleware],
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

describe("every route gets the same refusals from the one chain", () => {
  const config = parseConfig(YAML, { file: join(tmpdir(), "gateway.yaml") });
  const gateway = new Gateway(config, createLogger("test"));
  const sessions = new SessionRegistry(gateway, { maxSessions: 10, maxBodyBytes: 64 });
  let app: GatewayApp;
  before(() => {
    app = createApp({
      gateway,
      doors: [sseDoor(sessions), sessions],
      chain: securityChain(gateway, "127.0.0.1"),
    });
  });
  after(() => sessions.closeAll());

  /** Each route, by the road it takes: the pre-dispatch, or hono's router. */
  const ROUTES: [string, string, "lean" | "streamed" | "none"][] = [
    ["POST", "/mcp", "lean"],
    ["POST", "/mcp", "streamed"],
    ["POST", "/mcp/some-profile", "lean"],
    ["GET", "/mcp", "none"],
    ["DELETE", "/mcp", "none"],
    ["GET", "/sse", "none"],
    ["POST", "/message?sessionId=x", "lean"],
    ["GET", "/status.json", "none"],
    ["GET", "/metrics", "none"],
    ["GET", "/no-such-route", "none"],
  ];
  const send = (
    [method, path, body]: [string, string, "lean" | "streamed" | "none"],
    headers: Record<string, string>,
  ) => {
    const init: RequestInit & { duplex?: string } = {
      method,
      headers: { "content-type": "application/json", ...headers },
    };
    if (body === "lean") init.body = "{}";
    if (body === "streamed") {
      init.body = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode("{}"));
          c.close();
        },
      });
      init.duplex = "half";
    }
    return app.request(`http://127.0.0.1:8787${path}`, init);
  };
  const allAlike = async (headers: Record<string, string>) => {
    const answers = [];
    for (const route of ROUTES) answers.push(await answerOf(await send(route, headers)));
    for (const [i, a] of answers.entries()) {
      assert.deepEqual(
        a,
        answers[0],
        `${ROUTES[i]!.join(" ")} answers as ${ROUTES[0]!.join(" ")}`,
      );
    }
    return answers[0]!;
  };

  it("no token: the same 401 with its challenge everywhere", async () => {
    const a = await allAlike({});
    assert.equal(a.status, 401);
    assert.match(a.headers["www-authenticate"]!, /^Bearer realm="mcp-gateway"/);
  });

  it("a wrong token: the same 401, the challenge saying the token is invalid", async () => {
    const a = await allAlike({ authorization: "Bearer wrong" });
    assert.equal(a.status, 401);
    assert.match(a.headers["www-authenticate"]!, /error="invalid_token"/);
  });

  it("a foreign origin or host, even with a valid token: the same 403", async () => {
    const origin = await allAlike({
      authorization: `Bearer ${TOKEN}`,
      origin: "http://evil.example",
    });
    assert.equal(origin.status, 403);
    assert.match(origin.body, /origin http:\/\/evil\.example is not allowed/);
    const host = await allAlike({ authorization: `Bearer ${TOKEN}`, host: "evil.example" });
    assert.equal(host.status, 403);
    assert.match(host.body, /host evil\.example is not allowed/);
  });

  it("the token's request rate counts requests on every route alike", async () => {
    // Burst 3: three requests on three routes, then every route refuses with Retry-After.
    for (const route of ROUTES.slice(3, 6)) {
      const res = await send(route, { authorization: `Bearer ${RATE_TOKEN}` });
      assert.notEqual(res.status, 429, `${route.join(" ")}`);
      await res.body?.cancel();
    }
    const a = await allAlike({ authorization: `Bearer ${RATE_TOKEN}` });
    assert.equal(a.status, 429);
    assert.ok(Number(a.headers["retry-after"]) >= 1);
  });

  it("a body over the limit: the same 413 declared (pre-dispatch) or streamed (hono)", async () => {
    const big = JSON.stringify({ pad: "x".repeat(100) });
    const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const declared = await answerOf(
      await app.request("http://127.0.0.1:8787/mcp", { method: "POST", headers: auth, body: big }),
    );
    const streamed = await answerOf(
      await app.request("http://127.0.0.1:8787/mcp", {
        method: "POST",
        headers: auth,
        body: new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(big));
            c.close();
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    assert.equal(declared.status, 413);
    assert.deepEqual(streamed, declared);
  });
});
