/**
 * Creates sandboxed wasmoon engines inside a worker. One factory (one wasm instance) per worker;
 * a fresh engine per script, so nothing a script leaves behind reaches the next one (creating one
 * costs ~1–3 ms, and the worker makes the next engine while it waits for work).
 */
import { type LuaEngine, LuaFactory, LuaLibraries } from "wasmoon";
import { luaWasmPath } from "../../runtime/lua-wasm.ts";

let factory: Promise<LuaFactory> | undefined;

/** The worker's one factory; the wasm path is passed so compiled binaries and Deno find it. */
export function sharedFactory(): Promise<LuaFactory> {
  factory ??= luaWasmPath().then((path) => new LuaFactory(path));
  return factory;
}

/**
 * A new engine with only the safe standard libraries opened. `enableProxy: false` keeps JS
 * prototypes out of reach; `traceAllocations` makes `setMemoryMax` work. utf8 is opened through
 * `luaopen_utf8` directly because wasmoon's `loadLibrary(UTF8)` opens the string library instead.
 */
export async function createSandboxedEngine(): Promise<LuaEngine> {
  const f = await sharedFactory();
  const engine = await f.createEngine({
    openStandardLibs: false,
    enableProxy: false,
    injectObjects: false,
    traceAllocations: true,
  });
  const g = engine.global;
  for (
    const lib of [
      LuaLibraries.Base,
      LuaLibraries.Coroutine,
      LuaLibraries.Table,
      LuaLibraries.String,
      LuaLibraries.Math,
      LuaLibraries.OS,
    ]
  ) g.loadLibrary(lib);
  g.lua.luaopen_utf8(g.address);
  g.lua.lua_setglobal(g.address, "utf8");
  // The bootstrap keeps debug.getinfo as a private local (for error lines) and removes `debug`.
  g.lua.luaopen_debug(g.address);
  g.lua.lua_setglobal(g.address, "debug");
  return engine;
}
