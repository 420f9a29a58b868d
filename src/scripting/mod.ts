/**
 * @module The Lua scripting layer as the gateway uses it: a pool of killable worker processes
 * (`ScriptHost`) running sandboxed wasmoon engines with the `mcp`, `task`, `host`, `emit` and
 * `print` APIs. The worker side (`worker-main.ts`, which `src/main.ts` dispatches `__lua-worker`
 * to) is imported on its own, so the gateway process never loads wasmoon.
 */
export { ScriptHost, type ScriptHostOptions } from "./host.ts";
export { WORKER_SUBCOMMAND } from "./worker-process.ts";
export { formatBytes, formatMs, type ParsedLuaError, parseLuaError } from "./lua-errors.ts";
export {
  DEFAULT_LIMITS,
  type HostCallContext,
  type HostFunction,
  type LimitName,
  type RunOptions,
  ScriptBuffer,
  type ScriptFailure,
  type ScriptLimits,
  type ScriptOutcome,
  type ScriptStats,
  type ScriptSuccess,
  type ToolBridge,
  type ToolResult,
} from "./types.ts";
