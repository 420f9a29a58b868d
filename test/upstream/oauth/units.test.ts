/**
 * The parts of upstream OAuth that need no servers: the `oauth:` config rules (with their YAML
 * paths) and the credential seal (AES-256-GCM bound to its slot, under the configured key).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/mod.ts";
import { GatewayError } from "../../../src/shared/errors.ts";
import { Vault } from "../../../src/upstream/oauth/vault.ts";

const FILE = "/tmp/gw/gateway.yaml";

function problems(yaml: string): string {
  try {
    parseConfig(yaml, { file: FILE });
  } catch (err) {
    assert.ok(err instanceof GatewayError && err.code === "CONFIG_INVALID", String(err));
    return err.message;
  }
  assert.fail("expected the config to be refused");
}

describe("servers.<name>.oauth config", () => {
  it("is read for an HTTP server, with publicUrl and secrets.key", () => {
    const c = parseConfig(
      "gateway:\n  publicUrl: https://gw.example.com/\n  secrets: { key: " +
        '"0123456789abcdef0123456789abcdef" }\n' +
        "servers:\n  t:\n    url: https://t.example.com/mcp\n" +
        "    oauth: { mode: shared, clientId: abc, scopes: [read] }\n",
      { file: FILE },
    );
    const t = c.servers[0]!;
    assert.equal(t.kind, "http");
    assert.deepEqual(t.kind === "http" ? t.oauth : null, {
      mode: "shared",
      issuer: null,
      clientId: "abc",
      clientSecret: null,
      scopes: ["read"],
      audience: null,
    });
    assert.equal(c.gateway.publicUrl, "https://gw.example.com");
    assert.equal(c.gateway.secretsKey, "0123456789abcdef0123456789abcdef");
  });

  it("is refused on a command server, with its path", () => {
    assert.match(
      problems("servers:\n  s:\n    command: x\n    oauth: { mode: shared }\n"),
      /servers\.s\.oauth.*url servers only/,
    );
  });

  it("refuses a secret without a client id, and an unknown mode", () => {
    assert.match(
      problems(
        "servers:\n  t:\n    url: https://t.example.com/mcp\n" +
          "    oauth: { mode: shared, clientSecret: s }\n",
      ),
      /servers\.t\.oauth\.clientSecret.*needs clientId/,
    );
    assert.match(
      problems("servers:\n  t:\n    url: https://t.example.com/mcp\n    oauth: { mode: magic }\n"),
      /servers\.t\.oauth\.mode/,
    );
  });

  it("refuses per-user without client identities, and exchange without its client", () => {
    const server = "servers:\n  t:\n    url: https://t.example.com/mcp\n";
    assert.match(
      problems(server + "    oauth: { mode: per-user }\n"),
      /servers\.t\.oauth\.mode.*needs client identities/,
    );
    const exchange = problems(server + "    oauth: { mode: exchange }\n");
    assert.match(exchange, /servers\.t\.oauth\.clientId.*needs clientId and clientSecret/);
    assert.match(exchange, /servers\.t\.oauth\.mode.*set gateway\.auth\.oauth/);
  });

  it("refuses a short secrets.key", () => {
    assert.match(problems('gateway:\n  secrets: { key: "short" }\n'), /gateway\.secrets\.key/);
  });
});

describe("credential seal", () => {
  it("opens only in its own slot and under its own key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-vault-"));
    const a = await Vault.open("a-key-that-is-at-least-32-characters", join(dir, "unused.key"));
    const box = await a.seal("tracker", { tokens: { access_token: "secret-value" } });
    assert.ok(!JSON.stringify(box).includes("secret-value"));
    assert.deepEqual(await a.open("tracker", box), { tokens: { access_token: "secret-value" } });
    await assert.rejects(a.open("wiki", box), /does not open with this key/);
    const b = await Vault.open("another-key-that-is-at-least-32-chars", join(dir, "unused.key"));
    await assert.rejects(b.open("tracker", box), /does not open/);
  });

  it("makes a key file with mode 0600 and reuses it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-vault-"));
    const file = join(dir, "state/credentials.key");
    const one = await Vault.open(null, file);
    const box = await one.seal("s", { n: 1 });
    const two = await Vault.open(null, file);
    assert.deepEqual(await two.open("s", box), { n: 1 });
  });
});
