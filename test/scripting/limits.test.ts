import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { makeHost, processExists, sleep, valueOf } from "./_helpers.ts";

const host = makeHost({ poolSize: 2, limits: { timeoutMs: 2000, memoryBytes: 16 * 1024 * 1024 } });
after(() => host.close());

/** A backtracking pattern Lua matches in one long C call: the count hook never fires inside. */
const CATASTROPHIC = `return string.rep('a', 3000):find(string.rep('.-', 8) .. 'b')`;

describe("limits", () => {
  test("a script that spins forever ends with an error naming the time limit", async () => {
    const t0 = Date.now();
    const outcome = await host.run(`local n = 0 while true do n = n + 1 end`, {
      limits: { timeoutMs: 100 },
    });
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok);
    assert.equal(outcome.message, "script exceeded its time limit of 100ms");
    assert.equal(outcome.limit, "time");
    assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0}ms`);
  });

  test("catching the time-limit error with pcall does not escape it", async () => {
    const outcome = await host.run(
      `while true do pcall(function() while true do end end) end`,
      { limits: { timeoutMs: 150 } },
    );
    assert.ok(!outcome.ok);
    assert.equal(outcome.limit, "time");
  });

  test("a spinning coroutine is stopped too", async () => {
    const outcome = await host.run(
      `local co = coroutine.wrap(function() while true do end end) co()`,
      { limits: { timeoutMs: 100 } },
    );
    assert.ok(!outcome.ok);
    assert.equal(outcome.limit, "time");
  });

  test("a catastrophic pattern is stopped by killing the worker, which is replaced", async () => {
    await host.warmup();
    const before = host.workerPids();
    const t0 = Date.now();
    const outcome = await host.run(CATASTROPHIC, { limits: { timeoutMs: 200 } });
    assert.ok(!outcome.ok);
    assert.equal(outcome.message, "script exceeded its time limit of 200ms");
    assert.equal(outcome.limit, "time");
    assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0}ms`);
    await sleep(50);
    const killed = before.filter((pid) => !host.workerPids().includes(pid));
    assert.equal(killed.length, 1, "exactly the stuck worker was killed");
    assert.ok(!processExists(killed[0] as number));
    assert.equal(valueOf(await host.run(`return 6 * 7`)), 42);
    await host.warmup();
    assert.equal(host.workerPids().length, 2, "the pool is back to its size");
  });

  for (
    const [name, code] of [
      ["string doubling", `local s = 'x' while true do s = s .. s end`],
      ["table growth", `local t = {} for i = 1, 1e9 do t[i] = { i } end`],
      ["string.rep", `return #string.rep('x', 1e9)`],
    ] as const
  ) {
    test(`allocating without bound (${name}) ends with an error naming the memory limit`, async () => {
      const outcome = await host.run(code);
      assert.ok(!outcome.ok);
      assert.equal(outcome.message, "script exceeded its memory limit of 16MiB");
      assert.equal(outcome.limit, "memory");
    });
  }

  test("the gateway's event loop keeps ticking and other scripts complete while one spins", async () => {
    let ticks = 0;
    const interval = setInterval(() => ticks++, 10);
    try {
      const spin = host.run(`while true do end`, { limits: { timeoutMs: 1500 } });
      await sleep(100);
      const t0 = Date.now();
      assert.equal(valueOf(await host.run(`return 'other session'`)), "other session");
      const other = Date.now() - t0;
      const ticksBefore = ticks;
      await sleep(300);
      assert.ok(ticks - ticksBefore >= 10, `interval ticked ${ticks - ticksBefore} times in 300ms`);
      assert.ok(other < 1000, `the other script took ${other}ms`);
      const outcome = await spin;
      assert.ok(!outcome.ok);
      assert.equal(outcome.limit, "time");
    } finally {
      clearInterval(interval);
    }
  });

  test("a catastrophic pattern does not block another script either", async () => {
    const stuck = host.run(CATASTROPHIC, { limits: { timeoutMs: 800 } });
    await sleep(50);
    const t0 = Date.now();
    assert.equal(valueOf(await host.run(`return 1`)), 1);
    assert.ok(Date.now() - t0 < 700);
    assert.equal((await stuck).ok, false);
  });

  test("aborting a run kills its worker", async () => {
    const controller = new AbortController();
    const run = host.run(`while true do end`, {
      signal: controller.signal,
      limits: { timeoutMs: 10_000 },
    });
    await sleep(100);
    controller.abort();
    const outcome = await run;
    assert.ok(!outcome.ok);
    assert.equal(outcome.limit, "aborted");
  });

  test("Lua errors carry their line", async () => {
    const outcome = await host.run(`local a = 1\nlocal b = 2\nerror('boom')`);
    assert.ok(!outcome.ok);
    assert.equal(outcome.message, "boom");
    assert.equal(outcome.line, 3);
    assert.equal(outcome.chunk, "script");
    const syntax = await host.run(`local x = \n\n = 3`);
    assert.ok(!syntax.ok);
    assert.equal(syntax.line, 3);
    assert.match(syntax.message, /unexpected symbol/);
    const runtime = await host.run(`\nlocal t = nil\nreturn t.x`);
    assert.ok(!runtime.ok);
    assert.equal(runtime.line, 3);
    assert.match(runtime.message, /attempt to index a nil value/);
  });
});
