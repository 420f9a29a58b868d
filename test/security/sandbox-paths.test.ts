/**
 * A sandbox folder is checked as the kernel follows it, at the box's start as well: a `read:`
 * folder that was a symlink to a harmless folder when the config was read, and points at the
 * state folder (pins, credentials) when the server starts, is refused then and names both paths.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseConfig, type StdioServerConfig } from "../../src/config/mod.ts";
import { findBwrap, spawnSpec } from "../../src/upstream/mod.ts";

describe("a sandbox folder reached through a symlink", () => {
  it("is refused at the box's start when the symlink moved to the state folder", {
    skip: findBwrap() ? false : "bwrap is not installed",
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-sandbox-moved-"));
    mkdirSync(join(dir, "docs"));
    mkdirSync(join(dir, "state"));
    mkdirSync(join(dir, "work"));
    const link = join(dir, "shared");
    symlinkSync(join(dir, "docs"), link);
    const config = parseConfig(
      `gateway:\n  state: ./state\nservers:\n  s:\n    command: node\n    cwd: ./work\n` +
        `    sandbox: { read: [./shared] }\n`,
      { file: join(dir, "gateway.yaml"), env: { PATH: process.env.PATH } },
    );
    const server = config.servers[0] as StdioServerConfig;
    const env = { PATH: process.env.PATH ?? "" };
    assert.ok(spawnSpec(server, env).args.includes(join(dir, "docs")));
    rmSync(link);
    symlinkSync(join(dir, "state"), link);
    assert.throws(
      () => spawnSpec(server, env),
      (err: Error) =>
        err.message.includes(`read folder ${link} (${join(dir, "state")}) reaches`) ||
        assert.fail(err.message),
    );
  });
});
