/**
 * The last resort against leaked children: a process that exits without stopping its stdio
 * servers (any path the normal stop missed) still takes their process groups with it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { ROOT, waitFor } from "../_helpers/gateway.ts";
import { alive } from "../ops/_ops.ts";

/** This runtime, running a script file. */
function runScript(file: string): string[] {
  if (typeof (globalThis as { Deno?: unknown }).Deno !== "undefined") {
    return [process.execPath, "run", "-A", file];
  }
  return [process.execPath, file];
}

describe("the exit-time sweep", () => {
  it("kills a stdio server's group when the process exits without stopping it", async () => {
    const [cmd, ...args] = runScript(`${ROOT}/test/fixtures/exit-without-stop.ts`);
    const r = spawnSync(cmd!, args, { encoding: "utf8", timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const pid = Number(r.stdout.trim());
    assert.ok(pid > 0, r.stdout);
    try {
      await waitFor(() => !alive(pid), 2000, `server ${pid} to die`);
    } finally {
      try {
        process.kill(pid, "SIGKILL");
      } catch { /* gone, as it should be */ }
    }
  });
});
