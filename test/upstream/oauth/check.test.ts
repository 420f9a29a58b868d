/**
 * `mcp-gateway check --connect` in front of an OAuth upstream (a real authorization server and
 * the protected MCP server that trusts it): with no login stored, it says the server needs one
 * and how to give it, instead of reporting the upstream's 401 as an outage.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cli } from "../../cli/_cli.ts";
import { type Parties, startParties } from "./_setup.ts";

describe("check --connect and an OAuth upstream", () => {
  let parties: Parties;
  before(async () => {
    parties = await startParties(3600);
  });
  after(() => parties?.stop());

  it("says a shared-mode server with no login needs one, naming the command", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-check-oauth-"));
    const cfg = join(dir, "gateway.yaml");
    writeFileSync(
      cfg,
      `gateway: { state: ${JSON.stringify(join(dir, "state"))} }\n` +
        `servers:\n  tracker: { url: ${
          JSON.stringify(parties.upstream.url)
        }, oauth: { mode: shared } }\n`,
    );
    const r = cli(["check", "--connect", "--config", cfg]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^tracker: needs a login: run `mcp-gateway login tracker`$/m);
  });
});
