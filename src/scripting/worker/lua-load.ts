/**
 * Compiling Lua source and reading Lua errors through the raw C API: source is loaded in text
 * mode only (binary chunks refused) with its full byte length (wasmoon's own path cuts at NUL),
 * and an error value is read without running any metamethod a script could have planted.
 */
import { type LuaEngine, type LuaReturn, LuaType, type LuaWasm } from "wasmoon";

/** The parts of wasmoon's emscripten module used here and by the run loop. */
export interface RawModule {
  _malloc(size: number): number;
  _free(ptr: number): void;
  HEAPU8: Uint8Array;
  addFunction(fn: (...args: number[]) => unknown, sig: string): number;
  removeFunction(ptr: number): void;
}

const encoder = new TextEncoder();

/** Compiles source in text mode ("t": binary chunks refused) with its full byte length. */
export function loadText(lua: LuaWasm, L: number, source: string, name: string): LuaReturn {
  const mod = lua.module as unknown as RawModule;
  const bytes = encoder.encode(source);
  const ptr = mod._malloc(bytes.length + 1);
  try {
    mod.HEAPU8.set(bytes, ptr);
    return lua.luaL_loadbufferx(L, ptr, bytes.length, name, "t");
  } finally {
    mod._free(ptr);
  }
}

/** Reads the error value on top of the stack without running any metamethod. */
export function errorText(engine: LuaEngine, L: number): string {
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
