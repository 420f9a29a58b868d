// Registering a folder of macros at start uses one script worker, not one per file: each worker
// is a process of its own (~55 MiB, ~150 ms of CPU to be ready) that would start while the
// upstreams start. The host's command is wrapped so every worker start is counted.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ScriptHost } from "../../../src/scripting/mod.ts";
import { standaloneCommand } from "../../../src/scripting/standalone.ts";
import { loadMacros } from "../../../src/tools/macros/mod.ts";

describe("macro registration", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-macro-reg-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("registers four files, in order, on one worker", async () => {
    const starts = join(dir, "starts.log");
    writeFileSync(starts, "");
    const macros = join(dir, "macros");
    mkdirSync(macros);
    for (const name of ["d", "a", "c", "b"]) {
      writeFileSync(
        join(macros, `${name}.lua`),
        `mcp.tool { name = "${name}", description = "${name}", run = function() return "${name}" end }`,
      );
    }
    const host = new ScriptHost({
      vfs: {},
      lazy: true,
      poolSize: 2,
      command: ["sh", "-c", 'echo start >> "$0"; exec "$@"', starts, ...standaloneCommand()],
    });
    try {
      const defs = await loadMacros(host, macros, [], join(dir, "gateway.yaml"));
      assert.deepEqual(defs.map((d) => d.name), ["a", "b", "c", "d"]);
      assert.equal(readFileSync(starts, "utf8").trim().split("\n").length, 1);
    } finally {
      await host.close();
    }
  });
});
