/**
 * OAuth in the compiled binary: copied into an empty folder (no node_modules beside it), the
 * binary discovers a real authorization server's keys, serves its metadata, and lets an access
 * token call a tool. Runs when MCPGW_BINARY names the build; fails if that file is missing.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { nodeServer, textOf } from "../_helpers/gateway.ts";
import { startBinaryInEmptyDir, stopProcess } from "../_helpers/process.ts";
import { AUDIENCE, startProvider, type TestProvider } from "./_oidc.ts";
import { authedHttpClient } from "./_http.ts";

const BINARY = process.env.MCPGW_BINARY;
const AGENT = { id: "bin-agent", secret: "bin-secret-0123456789abcdef", scope: "tools:echo" };

describe("OAuth in the compiled binary", {
  skip: BINARY ? false : "MCPGW_BINARY not set (npm test sets it)",
}, () => {
  let provider: TestProvider;
  let child: ChildProcess | undefined;
  let url = "";

  before(async () => {
    assert.ok(existsSync(BINARY!), `binary not found at ${BINARY}`);
    provider = await startProvider([AGENT], "tools:echo");
    ({ child, url } = await startBinaryInEmptyDir(
      BINARY!,
      "mcpgw-oauth-bin-",
      `gateway:\n  auth:\n    oauth:\n      issuer: ${provider.issuer}\n` +
        `      audience: ${AUDIENCE}\n      scopes: { "tools:echo": ["echo__echo"] }\n` +
        `servers:\n  echo: ${nodeServer("echo.mjs")}\n`,
    ));
  });

  after(async () => {
    await stopProcess(child);
    await provider?.stop();
  });

  it("serves the metadata and lets an access token call a tool", async () => {
    const meta = await fetch(`${url}/.well-known/oauth-protected-resource/mcp`);
    assert.deepEqual((await meta.json()).authorization_servers, [provider.issuer]);
    const client = await authedHttpClient(url, await provider.token(AGENT, AUDIENCE));
    try {
      const r = await client.callTool({ name: "echo__echo", arguments: { text: "bin" } });
      assert.deepEqual(JSON.parse(textOf(r)), { text: "bin" });
    } finally {
      await client.close();
    }
    const refused = await fetch(`${url}/mcp`, { method: "POST", body: "{}" });
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate") ?? "", /resource_metadata=/);
  });
});
