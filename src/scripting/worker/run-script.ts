/**
 * Runs one script in a fresh engine inside the worker. The chunk runs on a new Lua thread
 * anchored in the registry (results never pile up on the main stack — wasmoon's "memory access
 * out of bounds" after ~60 runs); the code is loaded in text mode only; a count hook of our own
 * enforces the time limit on the running thread and every coroutine it creates; `setMemoryMax`
 * enforces the memory limit. Host waits arrive as yields carrying a promise, awaited here.
 */
import { LUA_REGISTRYINDEX, type LuaEngine, LuaReturn, LuaType, type LuaWasm } from "wasmoon";
import { messageOf } from "../../shared/errors.ts";
import { LUA_API, LUA_PRELUDE_TAIL } from "./lua/api.ts";
import { LUA_JSON } from "./lua/json.ts";
import { LUA_PRELUDE_HEAD, LUA_SANDBOX } from "./lua/sandbox.ts";
import { isMemoryError, parseLuaError } from "./lua-errors.ts";
import { pushJson } from "./lua-values.ts";
import { type DoneMessage, memoryLimitMessage, timeLimitMessage } from "../protocol.ts";
import type { RunContext } from "./run-context.ts";

/** The bootstrap chunk: sandbox, JSON encoder and API share one scope of locals. */
const BOOTSTRAP = [LUA_PRELUDE_HEAD, LUA_JSON, LUA_API, LUA_SANDBOX, LUA_PRELUDE_TAIL].join("\n");

/** Instructions between two looks at the clock (wasmoon uses the same). */
const HOOK_COUNT = 1000;
const LUA_MASKCOUNT = 8;

interface RawModule {
  _malloc(size: number): number;
  _free(ptr: number): void;
  HEAPU8: Uint8Array;
  addFunction(fn: (...args: number[]) => unknown, sig: string): number;
  removeFunction(ptr: number): void;
}

/** Compiles source in text mode ("t": binary chunks refused) with its full byte length. */
function loadText(lua: LuaWasm, L: number, source: string, name: string): LuaReturn {
  const mod = lua.module as unknown as RawModule;
  const bytes = new TextEncoder().encode(source);
  const ptr = mod._malloc(bytes.length + 1);
  try {
    mod.HEAPU8.set(bytes, ptr);
    return lua.luaL_loadbufferx(L, ptr, bytes.length, name, "t");
  } finally {
    mod._free(ptr);
  }
}

/** Reads the error value on top of the stack without running any metamethod. */
function errorText(engine: LuaEngine, L: number): string {
  const lua = engine.global.lua;
  const type = lua.lua_type(L, -1);
  if (type === LuaType.String || type === LuaType.Number) return lua.lua_tolstring(L, -1, null);
  if (type === LuaType.Userdata) {
    try {
      const value = engine.global.stateToThread(L).getValue(-1);
      if (value instanceof Error) return value.message;
    } catch { /* not one of wasmoon's userdata: fall through */ }
  }
  return `(error object is a ${lua.lua_typename(L, type)} value)`;
}

/** Runs the script of `ctx.message` to completion in `engine` (which the caller then closes). */
export async function runScript(engine: LuaEngine, ctx: RunContext): Promise<DoneMessage> {
  const msg = ctx.message;
  const g = engine.global;
  const lua = g.lua;
  const mod = lua.module as unknown as RawModule;
  const deadline = msg.deadline;
  const counts = () => ({ toolCalls: ctx.toolCalls, hostCalls: ctx.hostCalls });
  const fail = (raw: string): DoneMessage => ({
    t: "done",
    ok: false,
    ...parseLuaError(raw),
    ...counts(),
  });

  const thread = g.newThread();
  const threadRef = lua.luaL_ref(g.address, LUA_REGISTRYINDEX);
  const L = thread.address;
  let timedOut = false;
  let hook = 0;
  try {
    if (loadText(lua, L, BOOTSTRAP, "=bootstrap") !== LuaReturn.Ok) {
      return fail(`internal: bootstrap does not compile: ${errorText(engine, L)}`);
    }
    thread.pushValue(ctx.hostTable());
    pushJson(lua, L, { string_bytes: msg.limits.transferBytes });
    if (lua.lua_pcallk(L, 2, 5, 0, 0, null) !== LuaReturn.Ok) {
      return fail(`internal: bootstrap failed: ${errorText(engine, L)}`);
    }
    lua.lua_pushvalue(L, 2);
    ctx.store.metatableRef = lua.luaL_ref(L, LUA_REGISTRYINDEX);
    lua.lua_pushvalue(L, 3);
    ctx.store.idsRef = lua.luaL_ref(L, LUA_REGISTRYINDEX);
    lua.lua_pushvalue(L, 5);
    ctx.store.arrayMtRef = lua.luaL_ref(L, LUA_REGISTRYINDEX);
    lua.lua_settop(L, 1); // the runner function stays

    for (const [name, value] of Object.entries(msg.globals)) {
      pushJson(lua, L, value, ctx.store);
      lua.lua_setglobal(L, name);
    }
    if (msg.prelude === undefined) lua.lua_pushnil(L);
    else if (loadText(lua, L, msg.prelude, "=prelude") !== LuaReturn.Ok) {
      return fail(errorText(engine, L));
    }
    if (loadText(lua, L, msg.code, msg.chunk) !== LuaReturn.Ok) return fail(errorText(engine, L));
    lua.lua_pushboolean(L, msg.exposeHost ? 1 : 0);

    // Limits start now: everything above is the gateway's own setup.
    g.setMemoryMax(g.getMemoryUsed() + msg.limits.memoryBytes);
    const timeText = timeLimitMessage(msg.limits.timeoutMs);
    hook = mod.addFunction((hookL: number) => {
      if (Date.now() <= deadline) return;
      timedOut = true;
      // From now on fire on every instruction, so a script catching the error with pcall is
      // hit again as soon as it leaves the protected call.
      lua.lua_sethook(hookL, hook, LUA_MASKCOUNT, 1);
      lua.lua_pushstring(hookL, timeText);
      lua.lua_error(hookL);
    }, "vii");
    lua.lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_COUNT);

    let step = thread.resume(3);
    while (step.result === LuaReturn.Yield) {
      let promise: unknown;
      if (step.resultCount > 0 && lua.lua_type(L, -1) === LuaType.Userdata) {
        promise = thread.getValue(-1);
      }
      if (step.resultCount > 0) thread.pop(step.resultCount);
      const wait = promise instanceof Promise ? promise : new Promise((r) => setImmediate(r));
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        wait,
        new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now()) + 1))),
      ]);
      clearTimeout(timer);
      if (Date.now() > deadline) {
        timedOut = true;
        break;
      }
      step = thread.resume(0);
    }
    if (timedOut) return { t: "done", ok: false, message: timeText, limit: "time", ...counts() };
    if (step.result !== LuaReturn.Ok) {
      const raw = errorText(engine, L);
      if (step.result === LuaReturn.ErrorMem || isMemoryError(raw)) {
        return {
          t: "done",
          ok: false,
          message: memoryLimitMessage(msg.limits.memoryBytes),
          limit: "memory",
          ...counts(),
        };
      }
      return fail(raw);
    }
    return { t: "done", ok: true, json: lua.lua_tolstring(L, -1, null), ...counts() };
  } catch (err) {
    return fail(`internal: ${messageOf(err)}`);
  } finally {
    g.setMemoryMax(undefined);
    if (hook) {
      lua.lua_sethook(L, null, 0, 0);
      mod.removeFunction(hook);
    }
    lua.luaL_unref(g.address, LUA_REGISTRYINDEX, threadRef);
  }
}
