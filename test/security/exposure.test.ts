import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import { createApp } from "../../src/http/mod.ts";
import { SessionRegistry, sseDoor } from "../../src/session/legacy/mod.ts";
import { assertSafeExposure, isLoopback, securityMiddleware } from "../../src/http/security/mod.ts";
import { createLogger } from "../../src/shared/log.ts";
import { selfCommand } from "../../src/runtime/mod.ts";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { httpBytes, rawRequest } from "./_http.ts";

/** POSTs a non-JSON body with the given headers: 400 means it got past the guards. */
async function probe(gw: TestGateway, headers: Record<string, string>) {
  const port = gw.running.http!.port;
  const res = await rawRequest(
    port,
    httpBytes("POST", "/mcp", {
      host: `127.0.0.1:${port}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    }, "not json"),
  );
  return res;
}

describe("exposure: who may reach the gateway at all", () => {
  it("refuses to start without auth beyond loopback, exit code 2, naming the fix", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-exposure-"));
    const file = join(dir, "gateway.yaml");
    writeFileSync(file, "servers: {}\n");
    const [command, ...args] = selfCommand();
    // Refused before binding anything, so no non-loopback socket is ever opened.
    const r = spawnSync(command!, [...args, "--config", file, "--listen", "0.0.0.0:0"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0 without authentication/);
    assert.match(r.stderr, /gateway\.auth\.tokens/);
    assert.match(r.stderr, /127\.0\.0\.1/);
  });

  it("tells loopback addresses from every other address", () => {
    for (const h of ["127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) {
      assert.equal(isLoopback(h), true, h);
    }
    for (const h of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "128.0.0.1", "example.com"]) {
      assert.equal(isLoopback(h), false, h);
    }
  });

  it("allows listening beyond loopback once tokens are configured", () => {
    const config = parseConfig(
      `gateway: { auth: { tokens: [{ name: ops, token: "0123456789abcdefXYZ" }] } }\n`,
      { file: join(tmpdir(), "gateway.yaml") },
    );
    assert.doesNotThrow(() => assertSafeExposure(config.gateway, "0.0.0.0"));
    assert.throws(() => assertSafeExposure({ ...config.gateway, tokens: null }, "0.0.0.0"));
  });
});

it("refuses every request when auth disappears from a gateway listening beyond loopback", async () => {
  // In-process (no socket): a reload that drops gateway.auth while bound to 0.0.0.0.
  const config = parseConfig("servers: {}\n", { file: join(tmpdir(), "gateway.yaml") });
  const gateway = new Gateway(config, createLogger("test"));
  const sessions = new SessionRegistry(gateway, { maxSessions: 10, maxBodyBytes: 1024 });
  try {
    const app = createApp({
      gateway,
      doors: [sseDoor(sessions), sessions],
      middleware: securityMiddleware(gateway, "0.0.0.0"),
    });
    const res = await app.request("http://10.0.0.5:8787/mcp", { method: "POST", body: "{}" });
    assert.equal(res.status, 401);
    assert.equal((await app.request("http://10.0.0.5:8787/healthz")).status, 200);
  } finally {
    await sessions.closeAll();
  }
});

describe("Origin and Host checks against DNS rebinding (defaults)", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway("servers: {}\n");
  });
  after(async () => await gw?.stop());

  it("refuses a request from a foreign Origin with 403", async () => {
    for (
      const origin of [
        "http://evil.example",
        "http://localhost.evil.example:80",
        "http://localhost:1.evil.example",
        "https://localhost:8787",
        "null",
      ]
    ) {
      const res = await probe(gw, { origin });
      assert.equal(res.status, 403, origin);
      assert.equal(JSON.parse(res.body).error.code, "FORBIDDEN");
    }
  });

  it("lets pages served from this machine through by default", async () => {
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000"]) {
      assert.equal((await probe(gw, { origin })).status, 400, origin);
    }
    assert.equal((await probe(gw, {})).status, 400, "no Origin (not a browser)");
  });

  it("refuses a Host that is not a loopback name with 403", async () => {
    for (const host of ["evil.example", "evil.example:8787", "10.0.0.1:8787"]) {
      const res = await probe(gw, { host });
      assert.equal(res.status, 403, host);
      assert.match(JSON.parse(res.body).error.message, /gateway\.allowedHosts/);
    }
    for (const host of ["localhost:1234", "127.0.0.1", "[::1]:8787"]) {
      assert.equal((await probe(gw, { host })).status, 400, host);
    }
  });

  it("applies the same checks to the legacy SSE endpoints", async () => {
    const port = gw.running.http!.port;
    const get = await rawRequest(
      port,
      httpBytes("GET", "/sse", { host: `127.0.0.1:${port}`, origin: "http://evil.example" }),
    );
    assert.equal(get.status, 403);
    const post = await rawRequest(
      port,
      httpBytes("POST", "/message?sessionId=x", { host: "evil.example" }, "{}"),
    );
    assert.equal(post.status, 403);
  });
});

describe("Origin and Host checks (configured)", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  allowedOrigins: ["https://app.example.com", "https://*.tools.example.com"]
  allowedHosts: ["mcp.internal:*", "127.0.0.1:*"]
servers: {}
`);
  });
  after(async () => await gw?.stop());

  it("replaces the default origins with allowedOrigins", async () => {
    assert.equal((await probe(gw, { origin: "https://app.example.com" })).status, 400);
    assert.equal((await probe(gw, { origin: "https://a.tools.example.com" })).status, 400);
    assert.equal((await probe(gw, { origin: "https://a.b.tools.example.com" })).status, 403);
    assert.equal((await probe(gw, { origin: "http://localhost:5173" })).status, 403);
  });

  it("replaces the default hosts with allowedHosts", async () => {
    assert.equal((await probe(gw, { host: "mcp.internal:8787" })).status, 400);
    assert.equal((await probe(gw, { host: "localhost:8787" })).status, 403);
  });
});
