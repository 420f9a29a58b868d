/**
 * Runs share a worker's engine only when nothing one leaves behind can reach the next: each test
 * has one run (token A) try to leave state and the next run (token B) on the same, reused engine
 * try to read it. `stats.engineRun` proves the engine was reused (≥ 2) or replaced (1).
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RunOptions, ScriptOutcome } from "../../src/scripting/mod.ts";
import { fakeBridge, makeHost, sleep, valueOf } from "./_helpers.ts";

// One worker, one engine: every run below lands on it.
const host = makeHost({ poolSize: 1, maxWorkers: 1, workersPerToken: 1 });
after(() => host.close());

const asA = (code: string, opts: RunOptions = {}) => host.run(code, { owner: "token-a", ...opts });
const asB = (code: string, opts: RunOptions = {}) => host.run(code, { owner: "token-b", ...opts });

/** Which run of its engine an outcome was. */
function engineRun(outcome: ScriptOutcome): number {
  assert.ok(outcome.stats.engineRun !== undefined, "the worker reports the engine's run count");
  return outcome.stats.engineRun;
}

/** Token A leaves `code` behind (cleanly), then token B's `probe` must return an empty list. */
async function leaveThenProbe(code: string, probe: string, opts: RunOptions = {}): Promise<void> {
  const a = await asA(`${code}\nreturn 'left'`, opts);
  assert.equal(valueOf(a), "left");
  const b = await asB(`local seen = {}\n${probe}\nreturn seen`, opts);
  assert.deepEqual(valueOf(b), {}, "token B saw what token A left");
  assert.ok(engineRun(b) >= 2, `B ran on a reused engine (run ${engineRun(b)})`);
}

describe("isolation between runs on a reused engine", () => {
  test("a clean run's engine serves the next run", async () => {
    const first = await asA(`return 1`);
    const second = await asB(`return 2`);
    assert.equal(engineRun(second), engineRun(first) + 1);
  });

  test("ordinary runs (tool calls, print, emit, long strings, empty arrays) keep the engine", async () => {
    const bridge = fakeBridge();
    const first = engineRun(await asA(`return 1`));
    const runs = [
      `return task.await(mcp.call('echo', { a = 1 })).content`,
      `print(string.rep('x', 100000)) emit({ n = 1 }) return #table.concat({ string.rep('y', 70000) })`,
      `local co = coroutine.wrap(function() coroutine.yield(task.await(mcp.call('echo', {}))) end)
       return co().content`,
      `return LIST`,
    ];
    for (const [i, code] of runs.entries()) {
      const outcome = await asB(code, { bridge, globals: { LIST: [] } });
      valueOf(outcome);
      assert.equal(engineRun(outcome), first + i + 1, `run ${i} reused the engine`);
    }
  });

  test("globals, _G's metatable and load()'s default environment do not carry over", async () => {
    await leaveThenProbe(
      `SECRET = 'A'
       _G.SECRET2 = 'A'
       rawset(_G, 'SECRET3', 'A')
       load('SECRET4 = "A"')()
       setmetatable(_G, { __index = function(_, k) return 'A:' .. k end })`,
      `if getmetatable(_G) ~= nil then seen[#seen + 1] = 'metatable' end
       for _, k in ipairs({ 'SECRET', 'SECRET2', 'SECRET3', 'SECRET4', 'anything' }) do
         if _G[k] ~= nil then seen[#seen + 1] = k end
       end
       if load('return SECRET4')() ~= nil then seen[#seen + 1] = 'load env' end`,
    );
  });

  test("changes to library tables (plain writes and rawset) do not carry over", async () => {
    await leaveThenProbe(
      `for _, lib in ipairs({ string, table, math, os, coroutine, utf8, mcp, task }) do
         lib.secret = 'A'
         rawset(lib, 'secret2', 'A')
       end
       string.upper = function() return 'A' end
       table.concat = nil
       math.pi = 3
       mcp.call = function() return 'A' end
       print = function() end`,
      `for name, lib in pairs({ string = string, table = table, math = math, os = os,
         coroutine = coroutine, utf8 = utf8, mcp = mcp, task = task }) do
         if rawget(lib, 'secret') ~= nil or rawget(lib, 'secret2') ~= nil then seen[#seen + 1] = name end
       end
       if string.upper('x') ~= 'X' then seen[#seen + 1] = 'string.upper' end
       if table.concat == nil then seen[#seen + 1] = 'table.concat' end
       if math.pi == 3 then seen[#seen + 1] = 'math.pi' end
       if type(mcp.call('echo')) ~= 'string' then seen[#seen + 1] = 'mcp.call' end`,
    );
  });

  test("the string metatable: methods A added through string are not reachable from B's strings", async () => {
    await leaveThenProbe(
      `string.leak = function() return 'A' end
       assert(('x'):leak() == 'A')`,
      `if pcall(function() return ('x'):leak() end) then seen[#seen + 1] = 'method' end
       if ('x').leak ~= nil then seen[#seen + 1] = 'field' end
       if getmetatable('') ~= 'string' then seen[#seen + 1] = 'metatable' end
       if ('x'):upper() ~= 'X' then seen[#seen + 1] = 'upper' end`,
    );
  });

  test("no package, require, debug or registry is reachable to leave state in", async () => {
    await leaveThenProbe(
      `assert(package == nil and require == nil and debug == nil and dofile == nil)`,
      `for _, k in ipairs({ 'package', 'require', 'debug', 'dofile', 'loadfile', 'io' }) do
         if _G[k] ~= nil then seen[#seen + 1] = k end
       end`,
    );
  });

  test("a coroutine left suspended is not reachable from the next run", async () => {
    await leaveThenProbe(
      `LEFT = coroutine.create(function() while true do coroutine.yield('A') end end)
       coroutine.resume(LEFT)
       string.co = LEFT
       coroutine.left = coroutine.wrap(function() while true do coroutine.yield('A') end end)
       coroutine.left()`,
      `if LEFT ~= nil or string.co ~= nil or coroutine.left ~= nil then seen[#seen + 1] = 'coroutine' end
       for k, v in pairs(_G) do
         if type(v) == 'thread' then seen[#seen + 1] = k end
         if type(v) == 'table' then
           for k2, v2 in pairs(v) do if type(v2) == 'thread' then seen[#seen + 1] = k .. '.' .. k2 end end
         end
       end`,
    );
  });

  test("the empty-array marker is no shared table a run could write into", async () => {
    await leaveThenProbe(
      `local m = getmetatable(LIST)
       assert(m == 'array', 'the marker is the string array, not a table')`,
      `if getmetatable(LIST) ~= 'array' then seen[#seen + 1] = 'marker' end`,
      { globals: { LIST: [] } },
    );
  });

  test("a run's math.randomseed does not make the next run's random numbers foreseeable", async () => {
    assert.equal(valueOf(await asA(`math.randomseed(42) return 1`)), 1);
    const b = valueOf(await asB(`return { math.random(1, 1 << 40), math.random(1, 1 << 40) }`));
    const foreseen = valueOf(
      await asA(`math.randomseed(42) return { math.random(1, 1 << 40), math.random(1, 1 << 40) }`),
    );
    assert.notDeepEqual(b, foreseen);
  });

  test("an answer to an earlier run's call in flight never reaches the next run", async () => {
    const bridge = fakeBridge({
      slow_a: async () => {
        await sleep(150);
        return { content: [{ type: "text", text: "SECRET-A" }] };
      },
      slow_b: async () => {
        await sleep(600);
        return { content: [{ type: "text", text: "B" }] };
      },
    });
    // A starts a call and returns without waiting; its request and B's both have id 1.
    assert.equal(valueOf(await asA(`mcp.call('slow_a', {}) return 'A'`, { bridge })), "A");
    const b = await asB(`return task.await(mcp.call('slow_b', {})).content`, { bridge });
    assert.equal(valueOf(b), "B");
  });
});

describe("an engine whose run did not end cleanly is never reused", () => {
  test("after a run that raised", async () => {
    await asA(`return 1`);
    const failed = await asA(`SECRET = 'A' error('boom')`);
    assert.equal(failed.ok, false);
    const next = await asB(`return SECRET == nil`);
    assert.equal(valueOf(next), true);
    assert.equal(engineRun(next), 1, "a new engine after a failed run");
  });

  test("after a run stopped at its time limit", async () => {
    const failed = await asA(`SECRET = 'A' while true do end`, { limits: { timeoutMs: 100 } });
    assert.ok(!failed.ok);
    assert.equal(failed.limit, "time");
    const next = await asB(`return SECRET == nil`);
    assert.equal(valueOf(next), true);
    assert.equal(engineRun(next), 1, "a new engine after a timed-out run");
  });

  test("after a run stopped at its memory limit", async () => {
    const failed = await asA(`SECRET = 'A' local t = {} for i = 1, 1e9 do t[i] = i end`, {
      limits: { memoryBytes: 2 * 1024 * 1024 },
    });
    assert.ok(!failed.ok);
    assert.equal(failed.limit, "memory");
    const next = await asB(`return SECRET == nil`);
    assert.equal(valueOf(next), true);
    assert.equal(engineRun(next), 1, "a new engine after a run out of memory");
  });

  test("after a run whose result could not be encoded", async () => {
    const failed = await asA(`SECRET = 'A' return function() end`);
    assert.ok(!failed.ok);
    assert.equal(engineRun(await asB(`return 1`)), 1);
  });
});
