/**
 * `npm run release` (scripts/release.ts) on the compiled binary: one archive named for the
 * version and platform holding the binary, the example config with its macros, the systemd unit
 * and the LICENSE, and a `SHA256SUMS` that `sha256sum -c` accepts; the unpacked binary runs.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { ROOT } from "../_helpers/gateway.ts";

const BINARY = process.env.MCPGW_BINARY;
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const NAME = `mcp-gateway-${VERSION}-linux-x64`;

describe("the release archive", {
  skip: !BINARY
    ? "MCPGW_BINARY not set (npm test sets it)"
    : process.arch !== "x64"
    ? "the archive is named for linux-x64 builds"
    : false,
}, () => {
  const out = mkdtempSync(join(tmpdir(), "mcpgw-release-"));
  before(() => {
    execFileSync(join(ROOT, "node_modules/.bin/bun"), [
      join(ROOT, "scripts/release.ts"),
      "--binary",
      BINARY!,
      "--out",
      out,
    ], { cwd: ROOT, stdio: "ignore", timeout: 180_000 });
  });

  it("is checked by SHA256SUMS", () => {
    assert.equal(
      readFileSync(join(out, "SHA256SUMS"), "utf8").replace(/^[0-9a-f]{64} {2}/, ""),
      `${NAME}.tar.gz\n`,
    );
    const check = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: out, encoding: "utf8" });
    assert.equal(check.status, 0, check.stdout + check.stderr);
  });

  it("holds the binary, example config, macros, unit file and LICENSE, owned by root", () => {
    const listing = execFileSync("tar", ["-tvzf", `${NAME}.tar.gz`], { cwd: out, encoding: "utf8" })
      .trim().split("\n").map((l) => l.split(/\s+/));
    const entries = new Map(listing.map((f) => [f[5]!, { mode: f[0]!, owner: f[1]! }]));
    for (const file of ["mcp-gateway", "gateway.example.yaml", "mcp-gateway.service", "LICENSE"]) {
      assert.ok(entries.has(`${NAME}/${file}`), file);
    }
    assert.equal(entries.get(`${NAME}/mcp-gateway`)!.mode, "-rwxr-xr-x");
    assert.ok(entries.has(`${NAME}/macros/greet.lua`));
    assert.ok([...entries.values()].every((e) => e.owner === "0/0"));
  });

  it("unpacks to a binary that runs and the shipped unit file", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-unpacked-"));
    execFileSync("tar", ["-xzf", join(out, `${NAME}.tar.gz`), "-C", dir]);
    const run = spawnSync(join(dir, NAME, "mcp-gateway"), ["--version"], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(VERSION.replace(/\./g, "\\.")));
    assert.equal(
      readFileSync(join(dir, NAME, "mcp-gateway.service"), "utf8"),
      readFileSync(join(ROOT, "packaging/mcp-gateway.service"), "utf8"),
    );
  });
});
