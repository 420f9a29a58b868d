/**
 * Under systemd (JOURNAL_STREAM set) every log line of the real process starts with its syslog
 * priority, so `journalctl -p warning` can filter; without it, lines are plain JSON.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { selfCommand } from "../../src/runtime/mod.ts";
import { nodeServer, waitFor } from "../_helpers/gateway.ts";

describe("journald priorities", () => {
  it("prefixes each stderr line with <N> when JOURNAL_STREAM is set", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-journal-"));
    const file = join(dir, "gateway.yaml");
    writeFileSync(
      file,
      `servers:\n  broken: ${nodeServer("exit-at-start.mjs", "restart: { initialDelay: 30s }")}\n`,
    );
    const [cmd, ...pre] = selfCommand();
    const child = spawn(cmd!, [
      ...pre,
      "--config",
      file,
      "--listen",
      "127.0.0.1:0",
      "--log-level",
      "debug",
    ], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, JOURNAL_STREAM: "8:12345" } });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString("utf8")));
    const exited = new Promise((r) => child.once("exit", r));
    try {
      await waitFor(() => err.includes('"msg":"ready"'), 30_000, "the ready line");
      process.kill(child.pid!, "SIGTERM");
      await exited;
      const lines = err.split("\n").filter((l) => l !== "");
      const priorities: Record<string, string> = { debug: "7", info: "6", warn: "4", error: "3" };
      for (const line of lines) {
        const m = /^<(\d)>(\{.*\})$/.exec(line);
        assert.ok(m, `line without a priority prefix: ${line}`);
        const parsed = JSON.parse(m[2]!) as { level: string };
        assert.equal(m[1], priorities[parsed.level], line);
      }
      assert.ok(lines.some((l) => l.startsWith("<4>") && l.includes('"msg":"upstream down"')));
      assert.ok(lines.some((l) => l.startsWith("<6>") && l.includes('"msg":"listening"')));
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
