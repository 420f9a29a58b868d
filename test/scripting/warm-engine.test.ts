/**
 * The check that decides whether a worker's engine may serve another run, exercised in process:
 * a change to any table runs share (made here through the C API, standing in for a sandbox
 * escape) or a heap that did not shrink back makes the engine be discarded.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LUA_REGISTRYINDEX } from "wasmoon";
import { DEFAULT_LIMITS } from "../../src/scripting/mod.ts";
import type { RunMessage } from "../../src/scripting/protocol.ts";
import { RunContext } from "../../src/scripting/worker/run-context.ts";
import { runScript } from "../../src/scripting/worker/run-script.ts";
import { MAX_RUNS, WarmEngine } from "../../src/scripting/worker/warm-engine.ts";

let nextRun = 1;

/** Runs `code` on `warm` as the worker does; returns the done message. */
async function run(warm: WarmEngine, code: string) {
  const message: RunMessage = {
    t: "run",
    run: nextRun++,
    code,
    chunk: "test",
    exposeHost: false,
    globals: {},
    limits: DEFAULT_LIMITS,
    deadline: Date.now() + 10_000,
    vfs: {},
    hostNames: [],
    bufferKey: "k",
  };
  const ctx = new RunContext(message, () => {});
  warm.attach(ctx);
  return await runScript(warm, ctx);
}

/** A warm engine that has served one clean run and passed the check. */
async function used(): Promise<WarmEngine> {
  const warm = await WarmEngine.create();
  const done = await run(warm, "SECRET = 1 string.x = 1 return 1");
  assert.equal(done.ok, true);
  assert.equal(warm.detach(true), null, "a clean run leaves the engine reusable");
  return warm;
}

/** Runs `fn` against the engine's main state with a clean stack around it. */
function onState(
  warm: WarmEngine,
  fn: (lua: WarmEngine["engine"]["global"]["lua"], L: number) => void,
) {
  const g = warm.engine.global;
  const top = g.lua.lua_gettop(g.address);
  fn(g.lua, g.address);
  g.lua.lua_settop(g.address, top);
}

describe("warm engine reuse check", () => {
  test("clean runs keep the engine, and the run count grows", async () => {
    const warm = await used();
    const done = await run(warm, "return SECRET == nil and string.x == nil");
    assert.deepEqual(done.ok && JSON.parse(done.json), true);
    assert.equal(warm.runs, 2);
    assert.equal(warm.detach(true), null);
    warm.close();
  });

  test("a run that did not end cleanly is discarded without a check", async () => {
    const warm = await WarmEngine.create();
    const done = await run(warm, "error('boom')");
    assert.equal(done.ok, false);
    assert.equal(warm.detach(false), "failed");
    warm.close();
  });

  test("a changed library table in the pristine globals is caught", async () => {
    const warm = await used();
    onState(warm, (lua, L) => {
      lua.lua_getglobal(L, "string");
      lua.lua_pushinteger(L, 1n);
      lua.lua_setfield(L, -2, "leak");
    });
    assert.equal(warm.detach(true), "tampered");
    warm.close();
  });

  test("a new pristine global is caught", async () => {
    const warm = await used();
    onState(warm, (lua, L) => {
      lua.lua_pushinteger(L, 1n);
      lua.lua_setglobal(L, "LEAK");
    });
    assert.equal(warm.detach(true), "tampered");
    warm.close();
  });

  test("a changed string metatable is caught", async () => {
    const warm = await used();
    onState(warm, (lua, L) => {
      lua.lua_pushstring(L, "");
      lua.lua_getmetatable(L, -1);
      lua.lua_pushinteger(L, 1n);
      lua.lua_setfield(L, -2, "__leak");
    });
    assert.equal(warm.detach(true), "tampered");
    warm.close();
  });

  test("a metatable set on the pristine globals is caught", async () => {
    const warm = await used();
    onState(warm, (lua, L) => {
      lua.lua_rawgeti(L, LUA_REGISTRYINDEX, 2n); // LUA_RIDX_GLOBALS
      lua.lua_createtable(L, 0, 0);
      lua.lua_setmetatable(L, -2);
    });
    assert.equal(warm.detach(true), "tampered");
    warm.close();
  });

  test("a new named registry entry (where package.loaded would live) is caught", async () => {
    const warm = await used();
    onState(warm, (lua, L) => {
      lua.lua_pushinteger(L, 1n);
      lua.lua_setfield(L, LUA_REGISTRYINDEX, "_LOADED");
    });
    assert.equal(warm.detach(true), "tampered");
    warm.close();
  });

  test("a heap that stays grown after collection is caught", async () => {
    const warm = await used();
    onState(warm, (lua, L) => {
      lua.lua_getglobal(L, "string");
      lua.lua_getfield(L, -1, "rep");
      lua.lua_pushstring(L, "x");
      lua.lua_pushinteger(L, BigInt(4 * 1024 * 1024));
      lua.lua_callk(L, 2, 1, 0, null);
      lua.luaL_ref(L, LUA_REGISTRYINDEX); // held by a reference the check does not compare
    });
    assert.equal(warm.detach(true), "heap");
    warm.close();
  });

  test("an engine is replaced after its last allowed run", async () => {
    const warm = await used();
    warm.runs = MAX_RUNS;
    assert.equal(warm.detach(true), "worn");
    warm.close();
  });
});
