/**
 * Where the Lua wasm (wasmoon's glue.wasm) lives, per runtime. wasmoon would otherwise look
 * beside its own JS — the build machine's node_modules in a compiled binary — and Deno workers
 * would try to download it.
 */
import { createRequire } from "node:module";

declare const Bun: unknown;
declare const Deno: unknown;

/**
 * The wasm path to hand to `new LuaFactory(path)`, or undefined to let wasmoon find it (Node).
 * On Bun it comes from a `type: "file"` import, so compiled binaries embed the file.
 */
export async function luaWasmPath(): Promise<string | undefined> {
  if (typeof Bun !== "undefined") {
    // A template literal: Bun's bundler folds it into a static import and follows it, while
    // Deno's type checker leaves it alone (it cannot load a .wasm file as a module).
    const mod = await import(`./lua-wasm-bun${""}.ts`) as { LUA_WASM_PATH: string };
    return mod.LUA_WASM_PATH;
  }
  if (typeof Deno !== "undefined") {
    return createRequire(import.meta.url).resolve("wasmoon/dist/glue.wasm");
  }
  return undefined;
}
