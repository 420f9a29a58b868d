/**
 * `gateway.cors`, in process: off by default; preflights answered on the MCP endpoints and the
 * OAuth metadata for exactly the origins the origin check admits; the lean `POST /mcp` path
 * answers a browser with the same headers; `cors.origins` is the one origin list.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { problemsOf } from "../config/_problems.ts";
import { INITIALIZE, MCP_HEADERS } from "../security/_http.ts";

const PAGE = "https://app.example.test";

/** A preflight of `path` from `origin`. */
function preflight(gw: TestGateway, path: string, origin: string): Promise<Response> {
  return gw.running.fetch!(
    new Request(`${gw.url}${path}`, {
      method: "OPTIONS",
      headers: {
        host: new URL(gw.url).host,
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,mcp-session-id",
      },
    }),
  );
}

/** `res` is no CORS answer: not a preflight's 204, no origin allowed. */
async function assertNoCors(res: Response): Promise<void> {
  await res.body?.cancel();
  assert.notEqual(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-origin"), null);
}

describe("CORS off (the default)", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway("servers: {}\n");
  });
  after(async () => await gw?.stop());

  it("answers no preflight and allows no origin to read", async () => {
    await assertNoCors(await preflight(gw, "/mcp", "http://localhost:3000"));
  });
});

describe("CORS on", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  cors: { origins: ["${PAGE}", "https://*.tools.example.test"], maxAge: 1m }
servers: {}
`);
  });
  after(async () => await gw?.stop());

  for (
    const path of ["/mcp", "/mcp/team", "/sse", "/message", "/.well-known/oauth-protected-resource"]
  ) {
    it(`answers a preflight of ${path} from an allowed origin`, async () => {
      const res = await preflight(gw, path, PAGE);
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), PAGE);
      assert.match(res.headers.get("access-control-allow-methods") ?? "", /POST/);
      assert.match(res.headers.get("access-control-allow-methods") ?? "", /DELETE/);
      assert.equal(
        res.headers.get("access-control-allow-headers"),
        "authorization,content-type,mcp-session-id",
      );
      assert.equal(res.headers.get("access-control-max-age"), "60");
      assert.match(res.headers.get("vary") ?? "", /Origin/);
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
    });
  }

  it("matches origins as the origin check does (globs within one label)", async () => {
    const ok = await preflight(gw, "/mcp", "https://a.tools.example.test");
    assert.equal(ok.headers.get("access-control-allow-origin"), "https://a.tools.example.test");
    const not = await preflight(gw, "/mcp", "https://a.b.tools.example.test");
    assert.equal(not.headers.get("access-control-allow-origin"), null);
  });

  it("allows no other origin, the loopback defaults included", async () => {
    for (const origin of ["https://evil.example.test", "http://localhost:3000"]) {
      const res = await preflight(gw, "/mcp", origin);
      assert.equal(res.headers.get("access-control-allow-origin"), null, origin);
      // The origin check refuses the request itself alike: one list for both.
      const post = await fetch(`${gw.url}/mcp`, {
        method: "POST",
        headers: { ...MCP_HEADERS, origin },
        body: INITIALIZE,
      });
      assert.equal(post.status, 403, origin);
      assert.equal(post.headers.get("access-control-allow-origin"), null, origin);
      await post.body?.cancel();
    }
  });

  it("puts the CORS headers on a POST /mcp of stated length (the lean path)", async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, origin: PAGE },
      body: INITIALIZE,
    });
    await res.body?.cancel();
    assert.equal(res.status, 200);
    assert.ok(res.headers.get("mcp-session-id"));
    assert.equal(res.headers.get("access-control-allow-origin"), PAGE);
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    for (const name of ["mcp-session-id", "mcp-protocol-version", "www-authenticate"]) {
      assert.ok(exposed.split(",").includes(name), `${name} in ${exposed}`);
    }
  });

  it("leaves the status page and other routes without CORS", async () => {
    await assertNoCors(await preflight(gw, "/", PAGE));
  });
});

describe("CORS with credentials", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  cors: { origins: ["${PAGE}"], credentials: true }
servers: {}
`);
  });
  after(async () => await gw?.stop());

  it("says so, and names the origin rather than *", async () => {
    const res = await preflight(gw, "/mcp", PAGE);
    assert.equal(res.headers.get("access-control-allow-credentials"), "true");
    assert.equal(res.headers.get("access-control-allow-origin"), PAGE);
  });
});

describe("the CORS config", () => {
  it("refuses origins listed in two places", () => {
    const problems = problemsOf(`
gateway:
  allowedOrigins: ["https://a.example.test"]
  cors: { origins: ["https://b.example.test"] }
`);
    assert.ok(
      problems.some((p) => /^gateway\.allowedOrigins: .*gateway\.cors\.origins/.test(p)),
      problems.join("\n"),
    );
  });

  it("refuses an empty origin list", () => {
    const problems = problemsOf("gateway: { cors: { origins: [] } }\n");
    assert.ok(problems.some((p) => /^gateway\.cors\.origins: /.test(p)), problems.join("\n"));
  });
});
