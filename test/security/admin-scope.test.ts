/**
 * Admin scope: with auth on, `/metrics`, the status page and `/status.json` answer only tokens
 * with `admin: true` (or the status-page cookie an admin signed in with); every other token gets
 * 403 and never sees another token's name. The cookie holds a signed session, never the token,
 * and opens the status routes only.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { TokenConfig } from "../../src/config/mod.ts";
import { StatusSessions } from "../../src/http/mod.ts";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { authedHttpClient, bearer, INITIALIZE, MCP_HEADERS } from "./_http.ts";

const ADMIN = "admin-token-0123456789abcdef";
const WORKER = "worker-token-0123456789abcdef";
const OTHER = "other-token-0123456789abcdef";
const STATUS_ROUTES = ["/metrics", "/", "/status.json"];

const YAML = `
gateway:
  auth:
    tokens:
      - { name: boss-admin, token: "${ADMIN}", admin: true }
      - { name: worker-bot, token: "${WORKER}", tools: ["echo__echo"] }
      - { name: quiet-other, token: "${OTHER}" }
servers:
  echo: ${nodeServer("echo.mjs")}
`;

/** POSTs the sign-in form; never follows the redirect. */
function signIn(
  base: string,
  token: string,
  headers: Record<string, string> = {},
  body: BodyInit = new URLSearchParams({ token }).toString(),
) {
  return fetch(`${base}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
    redirect: "manual",
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** The `name=value` part of the status cookie a response sets, or null. */
function cookieOf(res: Response): string | null {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("mcpgw_status="));
  return set ? set.split(";")[0]! : null;
}

describe("admin scope on the operator routes", () => {
  let gw: TestGateway;
  let admin: Client;
  let worker: Client;
  let other: Client;
  before(async () => {
    gw = await startTestGateway(YAML);
    admin = await authedHttpClient(gw.url, ADMIN);
    worker = await authedHttpClient(gw.url, WORKER);
    other = await authedHttpClient(gw.url, OTHER);
    // Calls under every token, so the call journal holds all three names.
    await admin.callTool({ name: "echo__echo", arguments: {} });
    await worker.callTool({ name: "echo__echo", arguments: {} });
    await other.callTool({ name: "echo__fail", arguments: {} });
  });
  after(async () => {
    await admin?.close();
    await worker?.close();
    await other?.close();
    await gw?.stop();
  });

  it("answers a non-admin token 403 with a JSON error on /metrics, / and /status.json", async () => {
    for (const path of STATUS_ROUTES) {
      const res = await fetch(gw.url + path, { headers: bearer(WORKER) });
      assert.equal(res.status, 403, path);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/, path);
      const body = await res.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, "FORBIDDEN", path);
      assert.match(body.error.message, /needs an admin token/, path);
    }
  });

  it("never shows a non-admin the name of another token", async () => {
    const bodies: string[] = [];
    for (const path of [...STATUS_ROUTES, "/login", "/no-such-route"]) {
      bodies.push(await (await fetch(gw.url + path, { headers: bearer(WORKER) })).text());
    }
    bodies.push(await (await signIn(gw.url, WORKER)).text());
    bodies.push(JSON.stringify(await worker.listTools()));
    const refused = await worker.callTool({ name: "echo__fail", arguments: {} }).catch((e) =>
      String(e)
    );
    bodies.push(JSON.stringify(refused));
    const all = bodies.join("\n");
    assert.ok(!all.includes("boss-admin"), "an admin's name leaked");
    assert.ok(!all.includes("quiet-other"), "another token's name leaked");
  });

  it("serves an admin token every operator route, token names included", async () => {
    for (const path of STATUS_ROUTES) {
      const res = await fetch(gw.url + path, { headers: bearer(ADMIN) });
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }
    const status = await (await fetch(`${gw.url}/status.json`, { headers: bearer(ADMIN) })).json();
    const names = (status as { calls: { token: string }[] }).calls.map((c) => c.token);
    assert.deepEqual(new Set(names), new Set(["boss-admin", "worker-bot", "quiet-other"]));
  });

  it("keeps 401 for requests without any credentials, JSON on the data routes", async () => {
    for (const path of ["/metrics", "/status.json", "/login", "/logout"]) {
      const res = await fetch(gw.url + path);
      assert.equal(res.status, 401, path);
      assert.equal((await res.json()).error.code, "UNAUTHORIZED", path);
    }
    const page = await fetch(`${gw.url}/`);
    assert.equal(page.status, 401);
    assert.match(await page.text(), /<form method="post" action="\/login">/);
  });
});

describe("status-page sign-in", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(YAML);
  });
  after(async () => await gw?.stop());

  it("refuses a wrong token and a non-admin token, setting no cookie", async () => {
    const wrong = await signIn(gw.url, `${ADMIN}x`);
    assert.equal(wrong.status, 401);
    assert.equal(cookieOf(wrong), null);
    assert.match(await wrong.text(), /not valid/);
    const worker = await signIn(gw.url, WORKER);
    assert.equal(worker.status, 403);
    assert.equal(cookieOf(worker), null);
    assert.match(await worker.text(), /not an admin token/);
  });

  it("sets an HttpOnly, SameSite=Strict cookie holding a signed session, not the token", async () => {
    const res = await signIn(gw.url, ADMIN);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/");
    const set = res.headers.getSetCookie().find((c) => c.startsWith("mcpgw_status="))!;
    assert.ok(set, "no status cookie set");
    assert.match(set, /; HttpOnly/i);
    assert.match(set, /; SameSite=Strict/i);
    assert.match(set, /; Max-Age=43200/i);
    assert.doesNotMatch(set, /; Secure/i, "Secure on plain http would drop the cookie");
    assert.ok(!set.includes(ADMIN), "the token itself is in the cookie");
    const secure = await signIn(gw.url, ADMIN, { "x-forwarded-proto": "https" });
    assert.match(secure.headers.getSetCookie().join(), /mcpgw_status=[^,]*; Secure/i);
  });

  it("opens the status page, /status.json and /metrics with the cookie", async () => {
    const cookie = cookieOf(await signIn(gw.url, ADMIN))!;
    for (const path of STATUS_ROUTES) {
      const res = await fetch(gw.url + path, { headers: { cookie } });
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }
    const page = await (await fetch(`${gw.url}/`, { headers: { cookie } })).text();
    assert.match(page, /signed in as boss-admin/);
  });

  it("does not open /mcp (or any other route) with the cookie", async () => {
    const cookie = cookieOf(await signIn(gw.url, ADMIN))!;
    const mcp = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, cookie },
      body: INITIALIZE,
    });
    assert.equal(mcp.status, 401);
    await mcp.body?.cancel();
    const sse = await fetch(`${gw.url}/sse`, { headers: { cookie } });
    assert.equal(sse.status, 401);
    await sse.body?.cancel();
  });

  it("refuses a tampered or forged cookie", async () => {
    const cookie = cookieOf(await signIn(gw.url, ADMIN))!;
    const [name, value] = cookie.split("=") as [string, string];
    const [who, expires, mac] = value.split(".") as [string, string, string];
    const forged = [
      `${name}=${who}.${expires}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`,
      `${name}=${who}.${Number(expires) + 3600}.${mac}`,
      `${name}=quiet-other.${expires}.${mac}`,
      `${name}=${ADMIN}`,
    ];
    for (const bad of forged) {
      const json = await fetch(`${gw.url}/status.json`, { headers: { cookie: bad } });
      assert.equal(json.status, 401, bad);
      await json.body?.cancel();
      const page = await fetch(`${gw.url}/`, { headers: { cookie: bad } });
      assert.equal(page.status, 401, bad);
      assert.match(await page.text(), /action="\/login"/);
    }
  });

  it("answers a sign-in form over 8 KiB 413 with the reason, declared or streamed", async () => {
    const form = new URLSearchParams({ token: ADMIN, pad: "x".repeat(9 * 1024) }).toString();
    const declared = await signIn(gw.url, ADMIN, {}, form);
    assert.equal(declared.status, 413);
    assert.equal(cookieOf(declared), null);
    assert.match(await declared.text(), /over 8192 bytes: post only the token field/);
    // Without a Content-Length the limit counts the body as it streams in.
    const bytes = new TextEncoder().encode(form);
    const streamed = await signIn(
      gw.url,
      ADMIN,
      {},
      new ReadableStream({
        start(c) {
          for (let i = 0; i < bytes.length; i += 1024) c.enqueue(bytes.slice(i, i + 1024));
          c.close();
        },
      }),
    );
    assert.equal(streamed.status, 413);
    assert.match(await streamed.text(), /over 8192 bytes/);
    // A form within the limit still signs in.
    assert.equal((await signIn(gw.url, ADMIN)).status, 303);
  });

  it("applies the Origin check to the sign-in POST", async () => {
    const res = await signIn(gw.url, ADMIN, { origin: "https://evil.example" });
    assert.equal(res.status, 403);
    assert.equal(cookieOf(res), null);
    await res.body?.cancel();
  });

  it("signs out by clearing the cookie", async () => {
    const res = await fetch(`${gw.url}/logout`, { method: "POST", redirect: "manual" });
    assert.equal(res.status, 303);
    assert.match(res.headers.getSetCookie().join(), /mcpgw_status=;.*Max-Age=0/i);
  });
});

describe("status-page sessions", () => {
  const admin: TokenConfig = {
    name: "boss",
    token: ADMIN,
    tools: null,
    admin: true,
    profiles: null,
  };
  const tokens = [admin];

  it("expire after their lifetime", () => {
    let now = 1_000_000;
    const sessions = new StatusSessions({ ttlMs: 60_000, now: () => now });
    const value = sessions.issue(admin);
    assert.equal(sessions.verify(value, tokens)?.name, "boss");
    now += 59_000;
    assert.equal(sessions.verify(value, tokens)?.name, "boss");
    now += 1_000;
    assert.equal(sessions.verify(value, tokens), null);
  });

  it("end when the token is rotated, removed or loses admin", () => {
    const sessions = new StatusSessions();
    const value = sessions.issue(admin);
    assert.equal(sessions.verify(value, [{ ...admin, token: `${ADMIN}-new` }]), null);
    assert.equal(sessions.verify(value, []), null);
    assert.equal(sessions.verify(value, [{ ...admin, admin: false }]), null);
  });

  it("are signed with a key of their own process", () => {
    const value = new StatusSessions().issue(admin);
    assert.equal(new StatusSessions().verify(value, tokens), null);
  });
});
