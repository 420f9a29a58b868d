import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { selfCommand } from "../src/runtime/mod.ts";
import { nodeServer, ROOT } from "./_helpers/gateway.ts";

function cli(args: string[], cwd = ROOT) {
  const [cmd, ...pre] = selfCommand();
  const r = spawnSync(cmd!, [...pre, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tempConfig(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-cli-"));
  writeFileSync(join(dir, "gateway.yaml"), yaml);
  return join(dir, "gateway.yaml");
}

describe("command line", () => {
  it("--version prints the version and exits 0", () => {
    const r = cli(["--version"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^mcp-gateway 0\.1\.0 \((bun|deno) /);
  });

  it("--help prints usage and exits 0", () => {
    const r = cli(["--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /mcp-gateway check/);
  });

  it("an unknown flag is a usage error with exit 2", () => {
    const r = cli(["--bogus"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bogus/);
  });

  it("check exits 2 naming the YAML path of a bad value", () => {
    const r = cli([
      "check",
      "--config",
      tempConfig("servers:\n  docs:\n    url: https://x.test/mcp\n    timeout: 3x\n"),
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /servers\.docs\.timeout \(line 4\): expected a duration like 30s/);
  });

  it("check exits 0 on the shipped config", () => {
    const r = cli(["check"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ok — 3 server/);
  });

  it("tools prints the aggregated list", () => {
    const r = cli([
      "tools",
      "--config",
      tempConfig(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^echo__echo\s+Echo the arguments/m);
  });

  it("call prints the result on stdout", () => {
    const cfg = tempConfig(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    const r = cli(["call", "echo__echo", '{"a":1}', "--config", cfg]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(JSON.parse(r.stdout).content[0].text), { a: 1 });
  });

  it("call with arguments that are not JSON is a usage error", () => {
    const cfg = tempConfig(`servers: {}\n`);
    const r = cli(["call", "x", "{nope", "--config", cfg]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not valid JSON/);
  });

  it("call of an unknown tool exits 1 naming it", () => {
    const r = cli(["call", "nope__x", "--config", tempConfig("servers: {}\n")]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unknown tool "nope__x"/);
  });
});
