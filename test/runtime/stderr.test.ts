/**
 * Log lines go to stderr without the runtime's stream until a pipe is full; then the stream
 * takes them. Whichever carries a line, a slow reader gets every line, whole and in order.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync as spawnSyncImpl } from "node:child_process";
import { openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../_helpers/gateway.ts";

const FIXTURE = join(ROOT, "test/fixtures/stderr-lines.ts");

/** This runtime, running a script file. */
function runScript(file: string, ...args: string[]): string[] {
  if (typeof (globalThis as { Deno?: unknown }).Deno !== "undefined") {
    return [process.execPath, "run", "-A", file, ...args];
  }
  return [process.execPath, file, ...args];
}

/** The numbers the lines carry, checking each line is whole. */
function numbersOf(text: string): number[] {
  const lines = text.split("\n").filter((l) => l !== "");
  for (const line of lines) assert.equal(line.length, line.indexOf(" ") + 1001, line.slice(0, 20));
  return lines.map((l) => Number(l.slice(0, l.indexOf(" "))));
}

describe("writeStderr", () => {
  it("a reader that waits before reading a pipe still gets every line in order", async () => {
    const count = 2000; // ~2 MB: the pipe fills many times over
    const [cmd, ...args] = runScript(FIXTURE, String(count));
    const child = spawn(cmd!, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stderr.pause(); // nothing is read for a while: the writer meets a full pipe
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once("close", (code) => r(code)));
    await new Promise((r) => setTimeout(r, 300));
    const chunks: Buffer[] = [];
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.resume();
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0);
    assert.deepEqual(numbersOf(Buffer.concat(chunks).toString()), [...Array(count).keys()]);
    assert.equal(out, "terminal=false\n");
  });

  it("a file gets every line, and is not a terminal", () => {
    const file = join(tmpdir(), `mcpgw-stderr-${process.pid}.log`);
    const fd = openSync(file, "w");
    try {
      const [cmd, ...args] = runScript(FIXTURE, "300");
      const r = spawnSyncTo(cmd!, args, fd);
      assert.equal(r.status, 0);
      assert.equal(r.stdout, "terminal=false\n");
      assert.deepEqual(numbersOf(readFileSync(file, "utf8")), [...Array(300).keys()]);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

function spawnSyncTo(cmd: string, args: string[], fd: number) {
  return spawnSyncImpl(cmd, args, {
    stdio: ["ignore", "pipe", fd],
    encoding: "utf8",
    timeout: 30_000,
  });
}
