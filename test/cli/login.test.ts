/** `mcp-gateway login` names what is wrong with the server it was asked for. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { cliAsync } from "./_cli.ts";

describe("mcp-gateway login", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
  });
  after(async () => await gw?.stop());

  it("says a server the config does not have is unknown", async () => {
    const r = await cliAsync(["login", "nope", "--url", gw.url]);
    assert.equal(r.code, 1);
    assert.match(r.stdout + r.stderr, /unknown server "nope": the config has no such server/);
    assert.doesNotMatch(r.stdout + r.stderr, /oauth: section/);
  });

  it("says a configured server without oauth: has no oauth section", async () => {
    const r = await cliAsync(["login", "echo", "--url", gw.url]);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout + r.stderr,
      /server "echo" has no oauth: section \(servers\.echo\.oauth\)/,
    );
  });
});
