/**
 * Bun only: imports wasmoon's wasm as a file so `bun build --compile` embeds it; the path is
 * real on source runs and a `/$bunfs/…` path inside a compiled binary (Bun's fs reads both).
 */
// @ts-ignore: Bun's `type: "file"` import gives a path string; tsc has no module type for .wasm
import wasmPath from "wasmoon/dist/glue.wasm" with { type: "file" };

/** Path of the Lua wasm as Bun sees it. */
export const LUA_WASM_PATH: string = wasmPath as string;
