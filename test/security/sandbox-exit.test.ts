/**
 * A sandboxed server dies with the gateway, even when it would outlive it: a gateway process
 * killed with SIGKILL (no shutdown code runs) leaves its boxed server with nothing to run for,
 * and `--die-with-parent` ends it. The same server unboxed (the control) keeps running, since it
 * ignores its closed stdin — the test sees the difference, then stops the control by its PID.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { selfCommand } from "../../src/runtime/mod.ts";
import { fixture, waitFor } from "../_helpers/gateway.ts";
import { startGatewayProcess } from "../_helpers/process.ts";

/** Host PIDs of processes whose command line holds `marker`. */
function pidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmdline.includes(marker) && !cmdline.includes("bwrap")) out.push(Number(name));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

describe("a sandboxed server and its gateway", () => {
  it("dies when the gateway is killed; an unboxed one that ignores stdin would not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-sandbox-exit-"));
    const tag = `mcpgw-linger-${process.pid}-${Date.now()}`;
    const probe = JSON.stringify(fixture("sandbox-probe.mjs"));
    const config = join(dir, "gateway.yaml");
    writeFileSync(
      config,
      `servers:\n` +
        `  boxed: { command: node, args: [${probe}, --linger, ${tag}-boxed], sandbox: true }\n` +
        `  open: { command: node, args: [${probe}, --linger, ${tag}-open] }\n`,
    );
    const [cmd, ...pre] = selfCommand();
    const { child } = await startGatewayProcess(
      cmd!,
      [...pre, "--config", config, "--listen", "127.0.0.1:0"],
      { cwd: dir, ready: true, timeoutMs: 30_000 },
    );
    let open: number[] = [];
    try {
      await waitFor(() => pidsWith(`${tag}-boxed`).length > 0, 20_000, "the boxed server");
      await waitFor(() => pidsWith(`${tag}-open`).length > 0, 20_000, "the open server");
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(child.pid!, "SIGKILL");
      await exited;
      await waitFor(
        () => pidsWith(`${tag}-boxed`).length === 0,
        10_000,
        "the boxed server to die with its gateway",
      );
      // The control: give it the same time, and it is still there.
      await new Promise((r) => setTimeout(r, 500));
      open = pidsWith(`${tag}-open`);
      assert.ok(open.length > 0, "the unboxed control exited by itself");
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGKILL");
      for (const pid of [...open, ...pidsWith(tag)]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch { /* already gone */ }
      }
    }
  });
});
