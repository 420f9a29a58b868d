/**
 * Pushes JSON values from JS onto a Lua stack through the raw C API. wasmoon's own conversion
 * passes strings through `lua_pushstring`, which cuts them at the first NUL; here every string
 * crosses whole as `lua_pushlstring` over its UTF-8 bytes. JSON `null` becomes `nil` (so it
 * vanishes from tables), integral numbers become Lua integers, and a one-entry object keyed by
 * the run's secret buffer key (a `ScriptBuffer` a host function answered) becomes a buffer handle
 * whose bytes stay on the JS side. Nothing an upstream sends can carry that key.
 */
import { Buffer } from "node:buffer";
import { LUA_REGISTRYINDEX, type LuaWasm } from "wasmoon";

/** Deeper results are refused rather than risking the C stack. */
const MAX_DEPTH = 200;

/** Where buffer handles live: Lua-side metatable and id table (registry refs), JS-side bytes. */
export interface BufferStore {
  metatableRef: number;
  idsRef: number;
  /** Registry ref of the metatable marking empty JSON arrays (0 before the bootstrap ran). */
  arrayMtRef: number;
  bytes: Map<number, Uint8Array>;
  nextId: number;
  /** The run's buffer marker key (empty: no value becomes a buffer). */
  bufferKey: string;
}

interface RawModule {
  _malloc(size: number): number;
  _free(ptr: number): void;
  _lua_pushlstring(L: number, ptr: number, len: number): number;
  HEAPU8: Uint8Array;
}

const encoder = new TextEncoder();

/** Pushes a JS string with its full length (NULs included). */
export function pushString(lua: LuaWasm, L: number, text: string): void {
  const mod = lua.module as unknown as RawModule;
  const bytes = encoder.encode(text);
  const ptr = mod._malloc(bytes.length + 1);
  try {
    mod.HEAPU8.set(bytes, ptr); // read HEAPU8 after malloc: growing memory replaces the view
    mod._lua_pushlstring(L, ptr, bytes.length);
  } finally {
    mod._free(ptr);
  }
}

function bufferData(value: object, key: string): string | undefined {
  if (key === "") return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== key) return undefined;
  const data = (value as Record<string, unknown>)[key];
  return typeof data === "string" ? data : undefined;
}

function pushBuffer(lua: LuaWasm, L: number, base64: string, store: BufferStore): void {
  const bytes = new Uint8Array(Buffer.from(base64, "base64"));
  const id = store.nextId++;
  store.bytes.set(id, bytes);
  lua.lua_createtable(L, 0, 2);
  pushString(lua, L, "buffer");
  lua.lua_setfield(L, -2, "type");
  lua.lua_pushinteger(L, BigInt(bytes.length));
  lua.lua_setfield(L, -2, "bytes");
  lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(store.metatableRef));
  lua.lua_setmetatable(L, -2);
  lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(store.idsRef));
  lua.lua_pushvalue(L, -2);
  lua.lua_pushinteger(L, BigInt(id));
  lua.lua_rawset(L, -3);
  lua.lua_settop(L, -2); // pop the id table, leaving the buffer
}

/**
 * Pushes one JSON value (exactly one stack slot). Must run inside a Lua call (a host function)
 * or before memory limits are set: an allocation failure raises a Lua error.
 */
export function pushJson(
  lua: LuaWasm,
  L: number,
  value: unknown,
  store?: BufferStore,
  depth = 0,
): void {
  if (depth > MAX_DEPTH) throw new Error(`value nested more than ${MAX_DEPTH} levels deep`);
  if (lua.lua_checkstack(L, 4) === 0) throw new Error("Lua stack overflow");
  switch (typeof value) {
    case "undefined":
      lua.lua_pushnil(L);
      return;
    case "boolean":
      lua.lua_pushboolean(L, value ? 1 : 0);
      return;
    case "number":
      if (Number.isSafeInteger(value)) lua.lua_pushinteger(L, BigInt(value));
      else lua.lua_pushnumber(L, value);
      return;
    case "string":
      pushString(lua, L, value);
      return;
    case "object":
      break;
    default:
      lua.lua_pushnil(L);
      return;
  }
  if (value === null) {
    lua.lua_pushnil(L);
  } else if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    for (let i = 0; i < value.length; i++) {
      pushJson(lua, L, value[i], store, depth + 1);
      lua.lua_rawseti(L, -2, BigInt(i + 1));
    }
    if (value.length === 0 && store?.arrayMtRef) {
      lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(store.arrayMtRef));
      lua.lua_setmetatable(L, -2);
    }
  } else if (store && bufferData(value, store.bufferKey) !== undefined) {
    pushBuffer(lua, L, bufferData(value, store.bufferKey)!, store);
  } else {
    const entries = Object.entries(value);
    lua.lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      if (item === null || item === undefined) continue;
      pushString(lua, L, key);
      pushJson(lua, L, item, store, depth + 1);
      lua.lua_rawset(L, -3);
    }
  }
}
