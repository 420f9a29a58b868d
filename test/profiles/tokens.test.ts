/**
 * A token limited to profiles reaches only their endpoints: `403` on another profile's, on
 * plain `/mcp` and `/sse`, in either protocol era, and even on a profile that does not exist;
 * inside its profile its own globs still narrow what it sees.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { postModern } from "../protocol/_modern.ts";
import { INITIALIZE, MCP_HEADERS } from "../security/_http.ts";
import { CODER, config, legacyClient, modernClient, namesOf, NARROW } from "./_profiles.ts";

describe("tokens limited to profiles", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(config());
  });
  after(async () => {
    await gw?.stop();
  });

  const initialize = (path: string, token: string) =>
    fetch(`${gw.url}${path}`, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: INITIALIZE,
    });

  it("is refused with 403 on another profile, on /mcp and on a profile that does not exist", async () => {
    for (const path of ["/mcp/support", "/mcp", "/mcp/nope"]) {
      const res = await initialize(path, CODER);
      assert.equal(res.status, 403, path);
      const body = await res.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, "FORBIDDEN");
      assert.match(body.error.message, /token "coder" may not use/);
    }
  });

  it("is refused with 403 on /sse and on another profile's /sse", async () => {
    for (const path of ["/sse", "/sse/support"]) {
      const res = await fetch(`${gw.url}${path}`, {
        headers: { authorization: `Bearer ${CODER}` },
      });
      assert.equal(res.status, 403, path);
      await res.body?.cancel();
    }
  });

  it("is refused with 403 on /mcp for a 2026-07-28 request too", async () => {
    const res = await postModern(gw.url, CODER, "tools/list", {});
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });

  it("is served on its own profile, in both eras", async () => {
    const legacy = await legacyClient(gw.url, "/mcp/coding", CODER);
    const modern = await modernClient(gw.url, "/mcp/coding", CODER);
    try {
      const names = namesOf(await legacy.listTools());
      assert.ok(names.includes("alpha__echo") && names.includes("execute"), names.join(","));
      assert.ok(!names.some((n) => n.startsWith("beta__")));
      assert.deepEqual(namesOf(await modern.listTools()), names);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it("keeps the token's own globs inside its profile", async () => {
    const client = await legacyClient(gw.url, "/mcp/coding", NARROW);
    try {
      assert.deepEqual(namesOf(await client.listTools()), ["alpha__echo", "execute"]);
      await assert.rejects(
        client.callTool({ name: "alpha__structured", arguments: { n: 1 } }),
        /not allowed for token "narrow"/,
      );
      await assert.rejects(
        client.callTool({ name: "beta__echo", arguments: {} }),
        /unknown tool "beta__echo"/,
      );
    } finally {
      await client.close();
    }
  });
});
