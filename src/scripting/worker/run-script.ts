/**
 * Runs one script on a warm engine inside the worker. The chunk runs on a new Lua thread
 * anchored in the registry (results never pile up on the main stack — wasmoon's "memory access
 * out of bounds" after ~60 runs) with its own globals (`new_env`, see warm-engine.ts); the code is
 * loaded in text mode only; a count hook of our own enforces the time limit on the running thread
 * and every coroutine it creates; `setMemoryMax` enforces the memory limit. Host waits arrive as
 * yields carrying the id of the request waited for, awaited here.
 */
import { LUA_REGISTRYINDEX, LuaReturn, LuaType } from "wasmoon";
import { messageOf } from "../../shared/errors.ts";
import { isMemoryError, parseLuaError } from "./lua-errors.ts";
import { errorText, loadText } from "./lua-load.ts";
import { pushJson } from "./lua-values.ts";
import { type DoneMessage, memoryLimitMessage, timeLimitMessage } from "../protocol.ts";
import type { RunContext } from "./run-context.ts";
import { HOOK_COUNT, type WarmEngine } from "./warm-engine.ts";

/** Two random 32-bit seeds for the run's `math.random` (so no run can foresee another's). */
function seeds(): [bigint, bigint] {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return [BigInt(words[0]!), BigInt(words[1]!)];
}

/**
 * Runs the script of `ctx.message` to completion on `warm` (the caller then decides, with
 * `warm.detach`, whether the engine may serve another run).
 */
export async function runScript(warm: WarmEngine, ctx: RunContext): Promise<DoneMessage> {
  const engine = warm.engine;
  const msg = ctx.message;
  const g = engine.global;
  const lua = g.lua;
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
  let hooked = false;
  // One deadline timer per run (made at the first wait) wakes whichever wait is in progress;
  // racing each wait against a shared promise would pile up reactions on it.
  let wake: (() => void) | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  try {
    const refs = warm.refs;
    lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(refs.runner)); // 1: the runner
    lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(refs.newEnv));
    const [seed1, seed2] = seeds();
    lua.lua_pushinteger(L, BigInt(msg.limits.transferBytes));
    lua.lua_pushinteger(L, seed1);
    lua.lua_pushinteger(L, seed2);
    if (lua.lua_pcallk(L, 3, 1, 0, 0, null) !== LuaReturn.Ok) {
      return fail(`internal: could not make the run's globals: ${errorText(engine, L)}`);
    }
    // 2: the run's globals
    for (const [name, value] of Object.entries(msg.globals)) {
      pushJson(lua, L, value, ctx.store);
      lua.lua_setfield(L, 2, name);
    }
    // Loaded chunks get the run's globals as their _ENV (a main chunk's one upvalue).
    const withEnv = () => {
      lua.lua_pushvalue(L, 2);
      lua.lua_setupvalue(L, -2, 1);
    };
    if (msg.prelude === undefined) lua.lua_pushnil(L);
    else if (warm.pushPrelude(L, msg.prelude) !== LuaReturn.Ok) {
      return fail(errorText(engine, L));
    } else withEnv();
    if (loadText(lua, L, msg.code, msg.chunk) !== LuaReturn.Ok) return fail(errorText(engine, L));
    withEnv();
    lua.lua_pushboolean(L, msg.exposeHost ? 1 : 0);
    // The stack is now the runner and its arguments: env, prelude, main, keep_host.

    // Limits start now: everything above is the gateway's own setup.
    g.setMemoryMax(g.getMemoryUsed() + msg.limits.memoryBytes);
    const timeText = timeLimitMessage(msg.limits.timeoutMs);
    const hook = warm.hook;
    hook.state.deadline = deadline;
    hook.state.message = timeText;
    hook.state.timedOut = false;
    hooked = true;
    lua.lua_sethook(L, hook.pointer, hook.mask, HOOK_COUNT);

    let step = thread.resume(4);
    while (step.result === LuaReturn.Yield) {
      // The API yields the id of the request it waits for; anything else waits one turn.
      let wait: Promise<unknown> | undefined;
      if (step.resultCount > 0 && lua.lua_type(L, -1) === LuaType.String) {
        wait = ctx.waitFor(lua.lua_tolstring(L, -1, null));
      }
      if (step.resultCount > 0) thread.pop(step.resultCount);
      wait ??= new Promise((r) => setImmediate(r));
      expiryTimer ??= setTimeout(() => wake?.(), Math.max(0, deadline - Date.now()) + 1);
      await new Promise<void>((resolve) => {
        wake = resolve;
        void wait.then(() => resolve(), () => resolve());
      });
      wake = undefined;
      if (Date.now() > deadline) {
        timedOut = true;
        break;
      }
      step = thread.resume(0);
    }
    if (timedOut || warm.hook.state.timedOut) {
      return { t: "done", ok: false, message: timeText, limit: "time", ...counts() };
    }
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
    clearTimeout(expiryTimer);
    g.setMemoryMax(undefined);
    if (hooked) lua.lua_sethook(L, null, 0, 0);
    lua.luaL_unref(g.address, LUA_REGISTRYINDEX, threadRef);
  }
}
