/**
 * @module The Lua scripting layer as the gateway uses it: `host/` is the parent side (a pool of
 * killable worker processes, the call broker that answers a script's requests and charges its
 * transfer budget, the worker slots per nesting depth and token); `worker/` is the child side
 * (sandboxed wasmoon engines with the `mcp`, `task`, `host`, `emit` and `print` APIs). The two
 * share only `protocol.ts`. The worker entry (`worker/main.ts`, which `src/main.ts` dispatches
 * `__lua-worker` to) is imported on its own, so the gateway process never loads wasmoon.
 */
export { ScriptHost, type ScriptHostOptions } from "./host/host.ts";
export { WORKER_SUBCOMMAND } from "./host/worker-process.ts";
export { jsonBytes, TOO_LARGE_CODE, TransferBudget } from "./host/budget.ts";
export { MAX_DEPTH } from "./host/worker-slots.ts";
export { formatBytes, formatMs } from "./protocol.ts";
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
} from "./host/types.ts";
