import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { makeHost, processExists, sleep, valueOf } from "./_helpers.ts";
import { ScriptHost } from "../../src/scripting/mod.ts";

describe("worker pool", () => {
  test("300 scripts in a row on one host all succeed (no wasm 'memory access out of bounds')", async () => {
    const host = makeHost({ poolSize: 1 });
    try {
      for (let i = 1; i <= 300; i++) {
        const value = valueOf(
          await host.run(
            `
          local t = {}
          for j = 1, 50 do t[j] = tostring(j) .. args.tag end
          emit(#t)
          return { i = args.i, last = t[50] }
        `,
            { globals: { args: { i, tag: "x" } } },
          ),
        );
        assert.deepEqual(value, { i, last: "50x" });
      }
    } finally {
      await host.close();
    }
  });

  test("many concurrent runs share the pool: workers stay within the cap and all finish", async () => {
    const host = makeHost({ poolSize: 2, maxWorkers: 3 });
    try {
      let most = 0;
      const watch = setInterval(() => (most = Math.max(most, host.workerPids().length)), 5);
      const runs = Array.from(
        { length: 12 },
        (_, i) => host.run(`local s = 0 for k = 1, 2e5 do s = s + k end return ${i}`),
      );
      const values = (await Promise.all(runs)).map(valueOf);
      clearInterval(watch);
      assert.deepEqual(values, Array.from({ length: 12 }, (_, i) => i));
      assert.ok(most <= 3, `saw ${most} workers`);
      await sleep(50);
      assert.ok(host.workerPids().length <= 2, "extra workers retire when idle");
    } finally {
      await host.close();
    }
  });

  test("close kills every worker process and later runs are refused", async () => {
    const host = makeHost({ poolSize: 2 });
    await host.warmup();
    const busy = host.run(`while true do end`, { limits: { timeoutMs: 10_000 } });
    await sleep(100);
    const pids = host.workerPids();
    assert.equal(pids.length, 2);
    await host.close();
    for (const pid of pids) assert.equal(processExists(pid), false, `worker ${pid} still runs`);
    const outcome = await busy;
    assert.equal(outcome.ok, false);
    await assert.rejects(host.run(`return 1`), /closed/);
  });

  test("a worker that dies mid-run fails that run and is replaced", async () => {
    const host = makeHost({ poolSize: 1 });
    try {
      await host.warmup();
      const [pid] = host.workerPids();
      const run = host.run(`while true do end`, { limits: { timeoutMs: 10_000 } });
      await sleep(100);
      process.kill(pid as number, "SIGKILL");
      const outcome = await run;
      assert.ok(!outcome.ok);
      assert.equal(outcome.limit, "crash");
      assert.match(outcome.message, /script worker died/);
      assert.equal(valueOf(await host.run(`return 'again'`)), "again");
      assert.notEqual(host.workerPids()[0], pid);
    } finally {
      await host.close();
    }
  });

  test("a command that cannot start gives a clear error, not a hang", async () => {
    const host = new ScriptHost({ vfs: {}, poolSize: 1, command: ["/nonexistent/mcp-gateway"] });
    try {
      const outcome = await host.run(`return 1`);
      assert.ok(!outcome.ok);
      assert.match(outcome.message, /script worker could not start/);
      await sleep(100);
      assert.deepEqual(host.workerPids(), [], "no respawn loop");
    } finally {
      await host.close();
    }
  });
});
