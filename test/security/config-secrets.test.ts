import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { selfCommand } from "../../src/runtime/mod.ts";
import { ROOT } from "../_helpers/gateway.ts";

/** Runs `mcp-gateway check` on `yaml` as a child process; returns exit code and output. */
function check(yaml: string) {
  return run(["check"], yaml);
}

/** Runs the gateway's command line with `--config` pointing at `yaml`. */
function run(args: string[], yaml: string) {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-secrets-"));
  const file = join(dir, "gateway.yaml");
  writeFileSync(file, yaml);
  const [cmd, ...pre] = selfCommand();
  const r = spawnSync(cmd!, [...pre, ...args, "--config", file], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

const A = "duplicate-secret-value-0123456789";
const B = "other-secret-value-0123456789ab";

describe("config errors never echo secrets", () => {
  it("a token written as a YAML number is refused without its digits", () => {
    const r = check(`gateway:
  auth:
    tokens:
      - { name: a, token: "${A}" }
      - name: b
        token: 12345678901234567890
`);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /gateway\.auth\.tokens\[1\]\.token \(line 6\): expected string/);
    assert.doesNotMatch(r.out, /1234567890|1\.23456|e\+19/);
  });

  it("a header or env value of the wrong type is refused without its value", () => {
    const r = check(`servers:
  api:
    url: https://api.example.com/mcp
    headers: { Authorization: 98765432109876543210 }
  local:
    command: node
    env: { API_KEY: 55555555555555555555 }
`);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /servers\.api\.headers\.Authorization/);
    assert.match(r.out, /servers\.local\.env\.API_KEY/);
    assert.doesNotMatch(r.out, /98765|55555/);
  });

  it("a token too short is refused without its value", () => {
    const r = check(`gateway:\n  auth:\n    tokens: [{ name: a, token: "short-secret" }]\n`);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /gateway\.auth\.tokens\[0\]\.token/);
    assert.doesNotMatch(r.out, /short-secret/);
  });
});

describe("duplicate tokens are refused", () => {
  it("check refuses two tokens with the same value, naming both paths, not the value", () => {
    const r = check(`gateway:
  auth:
    tokens:
      - { name: a, token: "${A}" }
      - { name: b, token: "${B}" }
      - { name: c, token: "${A}" }
`);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /gateway\.auth\.tokens\[2\]\.token \(line 6\)/);
    assert.match(r.out, /gateway\.auth\.tokens\[0\]\.token/);
    assert.doesNotMatch(r.out, new RegExp(A));
  });

  it("check refuses two tokens with the same name, naming both paths", () => {
    const r = check(`gateway:
  auth:
    tokens:
      - { name: ci, token: "${A}" }
      - { name: ci, token: "${B}" }
`);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /gateway\.auth\.tokens\[1\]\.name \(line 5\): duplicate token name/);
    assert.match(r.out, /gateway\.auth\.tokens\[0\]\.name/);
  });

  it("the gateway does not start with duplicate tokens", () => {
    const r = run(
      ["--listen", "127.0.0.1:0"],
      `gateway:
  auth: { tokens: [{ name: a, token: "${A}" }, { name: b, token: "${A}" }] }
servers: {}
`,
    );
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /gateway\.auth\.tokens\[1\]\.token.*duplicate token value/);
    assert.doesNotMatch(r.out, new RegExp(A));
  });
});
