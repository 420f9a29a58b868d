/**
 * What an OAuth-capable client (mcp-remote, mcporter, Inspector) meets at a gateway that takes
 * configured bearer tokens only: every 401 carries a `Bearer` challenge saying there is no OAuth,
 * and the OAuth discovery paths answer 404 without a token — so no login flow starts that cannot
 * succeed. With OAuth configured, the 401 points at the resource metadata instead. Raw HTTP:
 * the headers on the wire are the point.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { httpBytes, MCP_HEADERS, rawRequest } from "./_http.ts";

const TOKEN = "challenge-token-0123456789abcdef";
const DISCOVERY = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-authorization-server/mcp",
  "/.well-known/openid-configuration",
];

const portOf = (gw: TestGateway) => Number(new URL(gw.url).port);
const raw = (gw: TestGateway, method: string, path: string, headers = {}, body = "") =>
  rawRequest(portOf(gw), httpBytes(method, path, { host: "127.0.0.1", ...headers }, body));

describe("a gateway with bearer tokens and no OAuth", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: t, token: "${TOKEN}", admin: true }] }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => await gw?.stop());

  it("puts a Bearer challenge saying there is no OAuth on every 401, the status page's too", async () => {
    const requests: [string, string, Record<string, string>, string][] = [
      ["GET", "/", { accept: "text/html" }, ""],
      ["POST", "/mcp", MCP_HEADERS, "{}"],
      ["GET", "/mcp", { accept: "text/event-stream" }, ""],
      ["GET", "/sse", {}, ""],
      ["POST", "/message?sessionId=x", MCP_HEADERS, "{}"],
      ["GET", "/metrics", {}, ""],
      ["GET", "/status.json", {}, ""],
      ["GET", "/no-such-route", {}, ""],
    ];
    for (const [method, path, headers, body] of requests) {
      const res = await raw(gw, method, path, headers, body);
      assert.equal(res.status, 401, `${method} ${path}`);
      const challenge = res.headers["www-authenticate"] ?? "";
      assert.match(challenge, /^Bearer realm="mcp-gateway"/, `${method} ${path}: ${challenge}`);
      assert.match(challenge, /error_description="[^"]*has no OAuth"/, `${method} ${path}`);
      assert.doesNotMatch(challenge, /resource_metadata|error=/, `${method} ${path}`);
    }
  });

  it("says in the 401 body how to get in", async () => {
    const res = await raw(gw, "POST", "/mcp", MCP_HEADERS, "{}");
    const error = JSON.parse(res.body).error;
    assert.equal(error.code, "UNAUTHORIZED");
    assert.match(error.message, /a bearer token is required/);
    assert.match(error.message, /gateway\.auth\.tokens; this gateway has no OAuth/);
  });

  it("names an unknown token invalid_token, on the fast path and through the middleware", async () => {
    for (const [method, path] of [["POST", "/mcp"], ["GET", "/sse"]] as const) {
      const res = await raw(gw, method, path, {
        ...(method === "POST" ? MCP_HEADERS : {}),
        authorization: `Bearer ${TOKEN}x`,
      }, method === "POST" ? "{}" : "");
      assert.equal(res.status, 401, path);
      assert.match(res.headers["www-authenticate"] ?? "", /error="invalid_token"/, path);
      assert.match(JSON.parse(res.body).error.message, /invalid bearer token/, path);
    }
  });

  it("answers the OAuth discovery paths 404 without a token, saying there is no OAuth", async () => {
    for (const path of DISCOVERY) {
      const res = await raw(gw, "GET", path);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers["www-authenticate"], undefined, path);
      const error = JSON.parse(res.body).error;
      assert.equal(error.code, "NOT_FOUND", path);
      assert.match(error.message, /has no OAuth/, path);
    }
  });

  it("still serves a valid token", async () => {
    const res = await raw(gw, "GET", "/status.json", { authorization: `Bearer ${TOKEN}` });
    assert.equal(res.status, 200);
  });
});

describe("a gateway with OAuth", () => {
  let gw: TestGateway;
  before(async () => {
    // No token is ever verified here, so the issuer is never contacted.
    gw = await startTestGateway(`
gateway:
  auth:
    tokens: [{ name: t, token: "${TOKEN}" }]
    oauth: { issuer: "https://auth.example.test", audience: "https://mcp.example.test/mcp" }
servers: {}
`);
  });
  after(async () => await gw?.stop());

  it("points the 401 at the resource metadata and says an access token will do", async () => {
    const res = await raw(gw, "POST", "/mcp", MCP_HEADERS, "{}");
    assert.equal(res.status, 401);
    assert.match(
      res.headers["www-authenticate"] ?? "",
      /^Bearer realm="mcp-gateway", resource_metadata="https:\/\/mcp\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
    assert.match(JSON.parse(res.body).error.message, /or an OAuth access token/);
  });

  it("serves the resource metadata, and 404 on the authorization server's paths", async () => {
    for (const path of DISCOVERY) {
      const res = await raw(gw, "GET", path);
      if (path.startsWith("/.well-known/oauth-protected-resource")) {
        assert.equal(res.status, 200, path);
        assert.deepEqual(JSON.parse(res.body).authorization_servers, ["https://auth.example.test"]);
      } else {
        assert.equal(res.status, 404, path);
        assert.match(JSON.parse(res.body).error.message, /oauth-protected-resource\/mcp/, path);
      }
    }
  });
});
