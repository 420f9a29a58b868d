/**
 * @module The Lua scripting layer: a pool of killable worker processes (`ScriptHost`) running
 * sandboxed wasmoon engines with the `mcp`, `task`, `host`, `emit` and `print` APIs, and the
 * worker entry (`runWorkerProcess`) that `src/main.ts` dispatches `__lua-worker` to.
 */
export { ScriptHost, type ScriptHostOptions } from "./host.ts";
export { runWorkerProcess } from "./worker-main.ts";
export { WORKER_SUBCOMMAND } from "./worker-process.ts";
/** A fresh sandboxed engine in this process — for benchmarks measuring engine start. */
export { createSandboxedEngine } from "./engine.ts";
export { formatBytes, formatMs, type ParsedLuaError, parseLuaError } from "./lua-errors.ts";
export {
  DEFAULT_LIMITS,
  type HostCallContext,
  type HostFunction,
  type LimitName,
  type RunOptions,
  type ScriptFailure,
  type ScriptLimits,
  type ScriptOutcome,
  type ScriptStats,
  type ScriptSuccess,
  type ToolBridge,
  type ToolResult,
} from "./types.ts";
