/**
 * The runtime's spawn: exactly the given environment (nothing of the parent's), the given
 * folder, a session and process group of its own, an exit told with its code or signal name,
 * and a start failure told with the system's code.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { type ChildExit, spawnChild } from "../../src/runtime/mod.ts";

/** Runs `sh -c script`, collecting stdout and stderr as text. */
async function run(script: string, env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const decoder = new TextDecoder();
  let stdoutEnded = false;
  const child = spawnChild({
    command: "/bin/sh",
    args: ["-c", script],
    cwd: "/tmp",
    env,
    onStdout: (c) => (out += decoder.decode(c)),
    onStderr: (c) => (err += decoder.decode(c)),
    onStdoutEnd: () => (stdoutEnded = true),
  });
  await child.started;
  const exit: ChildExit = await child.exited;
  await child.stderrEnded;
  return { child, exit, out: () => out, err: () => err, stdoutEnded: () => stdoutEnded };
}

/** Session and process group ids of `pid`, from /proc. */
function sessionOf(pid: number): { pgid: number; sid: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const [, , pgid, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pgid: Number(pgid), sid: Number(sid) };
}

describe("spawnChild", () => {
  it("gives the child only the environment it is given, in the folder it is given", async () => {
    process.env.MCPGW_SPAWN_TEST_LEAK = "parent's";
    try {
      const r = await run("env; pwd", { ONLY: "this" });
      const lines = r.out().trim().split("\n").filter((l) => !l.startsWith("PWD="));
      assert.deepEqual(lines, ["ONLY=this", "/tmp"]);
      assert.deepEqual(r.exit, { code: 0, signal: null });
    } finally {
      delete process.env.MCPGW_SPAWN_TEST_LEAK;
    }
  });

  it("starts the child in a session and process group of its own", async () => {
    let out = "";
    const child = spawnChild({
      command: "/bin/sh",
      args: ["-c", "read line; echo $line"],
      cwd: "/tmp",
      env: {},
      onStdout: (c) => (out += new TextDecoder().decode(c)),
      onStderr: () => {},
      onStdoutEnd: () => {},
    });
    await child.started;
    try {
      assert.deepEqual(sessionOf(child.pid!), { pgid: child.pid, sid: child.pid });
      assert.notEqual(sessionOf(child.pid!).sid, sessionOf(process.pid).sid);
      assert.equal(child.exit, null);
      child.write("over stdin\n");
      assert.deepEqual(await child.exited, { code: 0, signal: null });
      assert.equal(out, "over stdin\n");
      assert.deepEqual(child.exit, { code: 0, signal: null });
    } finally {
      child.signalGroup("SIGKILL");
    }
  });

  it("tells an exit by signal with the signal's name and no code", async () => {
    const child = spawnChild({
      command: "/bin/sh",
      args: ["-c", "sleep 30"],
      cwd: "/tmp",
      env: {},
      onStdout: () => {},
      onStderr: () => {},
      onStdoutEnd: () => {},
    });
    await child.started;
    child.signalGroup("SIGTERM");
    assert.deepEqual(await child.exited, { code: null, signal: "SIGTERM" });
  });

  it("reads stderr apart from stdout, and sees stdout end", async () => {
    const r = await run("echo out; echo err >&2; exit 4");
    assert.equal(r.out(), "out\n");
    assert.equal(r.err(), "err\n");
    assert.deepEqual(r.exit, { code: 4, signal: null });
    await new Promise((res) => setTimeout(res, 50));
    assert.ok(r.stdoutEnded());
  });

  it("rejects `started` with ENOENT for a command that does not exist", async () => {
    const child = spawnChild({
      command: "/nonexistent/mcp-server",
      args: [],
      cwd: "/tmp",
      env: {},
      onStdout: () => {},
      onStderr: () => {},
      onStdoutEnd: () => {},
    });
    await assert.rejects(child.started, (err: { code?: string }) => err.code === "ENOENT");
    assert.equal(child.write("ignored\n"), undefined);
  });

  it("with `detached: false` keeps the child in this process's session and group", async () => {
    const child = spawnChild({
      command: "/bin/sh",
      args: ["-c", "sleep 30"],
      cwd: "/tmp",
      env: {},
      detached: false,
      onStdout: () => {},
      onStdoutEnd: () => {},
    });
    await child.started;
    try {
      assert.deepEqual(sessionOf(child.pid!), sessionOf(process.pid));
    } finally {
      child.kill("SIGKILL");
    }
    assert.deepEqual(await child.exited, { code: null, signal: "SIGKILL" });
    child.kill("SIGKILL"); // after its exit: nothing, no throw
  });

  it("`kill` signals the child alone, not its group", async () => {
    let out = "";
    const child = spawnChild({
      command: "/bin/sh",
      args: ["-c", "sleep 30 & echo $!; wait"],
      cwd: "/tmp",
      env: {},
      onStdout: (c) => (out += new TextDecoder().decode(c)),
      onStdoutEnd: () => {},
    });
    await child.started;
    while (!out.includes("\n")) await new Promise((res) => setTimeout(res, 20));
    const grandchild = Number(out.trim());
    try {
      child.kill("SIGKILL");
      assert.deepEqual(await child.exited, { code: null, signal: "SIGKILL" });
      process.kill(grandchild, 0); // still there: only the shell was killed
    } finally {
      process.kill(grandchild, "SIGKILL");
    }
  });

  it('with `stderr: "inherit"` the child writes to this process\'s stderr, not a pipe', async () => {
    let read = 0;
    const child = spawnChild({
      command: "/bin/sh",
      args: ["-c", "echo 'spawn test: an inherited stderr line' >&2"],
      cwd: "/tmp",
      env: {},
      stderr: "inherit",
      onStdout: () => {},
      onStderr: () => read++,
      onStdoutEnd: () => {},
    });
    await child.started;
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    await child.stderrEnded;
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(read, 0, "an inherited stderr is not read by this process");
  });
});
