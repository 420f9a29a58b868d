/**
 * A sandboxed engine made ready ahead of the run that uses it, and reused for later runs only when
 * nothing of an earlier run can reach them. Making one (engine plus the bootstrap that builds
 * the sandbox and the API) costs ~2 ms; a run on a warm engine pays only for its own code.
 *
 * Isolation between runs on one engine (docs/ARCHITECTURE.md, "One engine, many runs"):
 * - scripts never see the pristine globals: each run gets its own copy of them and of every
 *   library table (`new_env` in lua/api.ts), so what a run writes dies with its copy;
 * - after a run, `verify` checks every table runs share, key by key and metatable by metatable,
 *   against the snapshot taken when the engine was made, and collects garbage; the heap must then
 *   be back within {@link HEAP_SLACK_BYTES} of its size when the engine was new;
 * - only a run that ended `ok` is followed by that check: a run that raised, hit a limit or
 *   failed inside the worker has its engine closed, never reused;
 * - after {@link MAX_RUNS} runs the engine is replaced anyway.
 */
import { LUA_REGISTRYINDEX, type LuaEngine, LuaReturn } from "wasmoon";
import { LUA_API, LUA_PRELUDE_TAIL } from "./lua/api.ts";
import { LUA_JSON } from "./lua/json.ts";
import { LUA_PRELUDE_HEAD, LUA_SANDBOX } from "./lua/sandbox.ts";
import { createSandboxedEngine } from "./engine.ts";
import { errorText, loadText, type RawModule } from "./lua-load.ts";
import { createHostTable, type RunContext } from "./run-context.ts";

/** The bootstrap chunk: sandbox, JSON encoder and API share one scope of locals. */
const BOOTSTRAP = [LUA_PRELUDE_HEAD, LUA_JSON, LUA_API, LUA_SANDBOX, LUA_PRELUDE_TAIL].join("\n");

/** Runs one engine serves before it is replaced regardless. */
export const MAX_RUNS = 1000;

/** How far above its size when new an engine's heap may be, after a run and a collection. */
export const HEAP_SLACK_BYTES = 512 * 1024;

/** Distinct preludes an engine keeps compiled. */
const MAX_PRELUDES = 8;

/** Why an engine was not reused (counted by the worker, shown in tests). */
export type DiscardReason = "failed" | "tampered" | "heap" | "worn";

/** Registry references to what the bootstrap returned. */
export interface BootRefs {
  runner: number;
  newEnv: number;
  verify: number;
  bufferMt: number;
  bufferIds: number;
  arrayMt: number;
}

/** What the time-limit hook of the run in progress needs (see run-script.ts). */
export interface HookState {
  /** Epoch ms when the run's time is up. */
  deadline: number;
  /** The error the hook raises. */
  message: string;
  /** Set by the hook when it fired. */
  timedOut: boolean;
}

/** Instructions between two looks at the clock (wasmoon uses the same). */
export const HOOK_COUNT = 1000;
const LUA_MASKCOUNT = 8;

/** One engine with its sandbox built, serving one run at a time. */
export class WarmEngine {
  readonly engine: LuaEngine;
  readonly refs: BootRefs;
  /** Runs started on this engine. */
  runs = 0;
  /** The count hook that enforces the time limit, made once per engine (`hook.state` per run). */
  readonly hook: { pointer: number; mask: number; state: HookState };
  #current: RunContext | undefined;
  #pristineBytes = 0;
  /** Compiled preludes (the gateway's own Lua, a handful of texts): source → registry ref. */
  #preludes = new Map<string, number>();

  private constructor(engine: LuaEngine, refs: BootRefs) {
    this.engine = engine;
    this.refs = refs;
    const lua = engine.global.lua;
    const mod = lua.module as unknown as RawModule;
    const state: HookState = { deadline: 0, message: "", timedOut: false };
    const pointer = mod.addFunction((hookL: number) => {
      if (Date.now() <= state.deadline) return;
      state.timedOut = true;
      // From now on fire on every instruction, so a script catching the error with pcall is
      // hit again as soon as it leaves the protected call.
      lua.lua_sethook(hookL, pointer, LUA_MASKCOUNT, 1);
      lua.lua_pushstring(hookL, state.message);
      lua.lua_error(hookL);
    }, "vii");
    this.hook = { pointer, mask: LUA_MASKCOUNT, state };
  }

  /** A new engine with the bootstrap run; throws when the bootstrap fails. */
  static async create(): Promise<WarmEngine> {
    const engine = await createSandboxedEngine();
    try {
      const made: { self?: WarmEngine } = {};
      const host = createHostTable(() => {
        const ctx = made.self ? made.self.#current : undefined;
        if (!ctx) throw new Error("no script is running on this engine");
        return ctx;
      });
      const g = engine.global;
      const lua = g.lua;
      const L = g.address;
      if (loadText(lua, L, BOOTSTRAP, "=bootstrap") !== LuaReturn.Ok) {
        throw new Error(`bootstrap does not compile: ${errorText(engine, L)}`);
      }
      g.pushValue(host);
      lua.lua_createtable(L, 0, 1);
      lua.lua_pushinteger(L, 1n);
      lua.lua_setfield(L, -2, "string_bytes");
      if (lua.lua_pcallk(L, 2, 6, 0, 0, null) !== LuaReturn.Ok) {
        throw new Error(`bootstrap failed: ${errorText(engine, L)}`);
      }
      // Popped from the top: verify, array_mt, new_env, buffer_ids, buffer_mt, run.
      const ref = () => lua.luaL_ref(L, LUA_REGISTRYINDEX);
      const verify = ref();
      const arrayMt = ref();
      const newEnv = ref();
      const bufferIds = ref();
      const bufferMt = ref();
      const runner = ref();
      const self = new WarmEngine(engine, { runner, newEnv, verify, bufferMt, bufferIds, arrayMt });
      self.#pristineBytes = g.getMemoryUsed();
      made.self = self;
      return self;
    } catch (err) {
      engine.global.close();
      throw err;
    }
  }

  /** Makes `ctx` the run the host functions act for, and hands it the engine's buffer tables. */
  attach(ctx: RunContext): void {
    this.#current = ctx;
    this.runs++;
    ctx.store.metatableRef = this.refs.bufferMt;
    ctx.store.idsRef = this.refs.bufferIds;
    ctx.store.arrayMtRef = this.refs.arrayMt;
  }

  /**
   * Ends the run in progress. `ok` says whether it ended cleanly; the answer is null when the
   * engine may serve another run, else why it must be closed.
   */
  detach(ok: boolean): DiscardReason | null {
    this.#current = undefined;
    if (!ok) return "failed";
    if (this.runs >= MAX_RUNS) return "worn";
    const g = this.engine.global;
    const lua = g.lua;
    const L = g.address;
    const top = lua.lua_gettop(L);
    try {
      lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.refs.verify));
      if (lua.lua_pcallk(L, 0, 1, 0, 0, null) !== LuaReturn.Ok) return "tampered";
      if (lua.lua_toboolean(L, -1) === 0) return "tampered";
    } finally {
      lua.lua_settop(L, top);
    }
    if (g.getMemoryUsed() > this.#pristineBytes + HEAP_SLACK_BYTES) return "heap";
    return null;
  }

  /**
   * Pushes onto `L` the prelude compiled (once per engine; its `_ENV` is re-pointed by the caller each
   * run). Answers the load status, the compile error on the stack when it failed. Scripts never
   * hold the compiled chunk itself, only what each run of it makes, in that run's own globals.
   */
  pushPrelude(L: number, source: string): LuaReturn {
    const g = this.engine.global;
    const ref = this.#preludes.get(source);
    if (ref !== undefined) {
      g.lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(ref));
      return LuaReturn.Ok;
    }
    const status = loadText(g.lua, L, source, "=prelude");
    if (status === LuaReturn.Ok && this.#preludes.size < MAX_PRELUDES) {
      g.lua.lua_pushvalue(L, -1);
      this.#preludes.set(source, g.lua.luaL_ref(L, LUA_REGISTRYINDEX));
    }
    return status;
  }

  /** Frees the engine (its wasm memory goes back to the worker's shared factory). */
  close(): void {
    this.#current = undefined;
    try {
      this.engine.global.close();
      (this.engine.global.lua.module as unknown as RawModule).removeFunction(this.hook.pointer);
    } catch { /* dropped either way */ }
  }
}
