/**
 * @module Code mode: the `execute` tool (`tool.ts`), its Lua prelude (`tools.search/describe/
 * call` and the `tools["server__tool"]` shorthand), its one bridge to the gateway
 * (`bridge.ts`: traced calls with outages as data), its calls trace and the assembly of its
 * result.
 */
export { type CallEnvelope, type ExecuteDeps, runCalls } from "./bridge.ts";
export {
  CALL_ERROR_CODES,
  type CallError,
  type CallErrorCode,
  callErrorCode,
  callErrorOf,
  OUTAGE_CODES,
} from "./codes.ts";
export { EXECUTE_TOOL_NAME, executeToolDefinition } from "./description.ts";
export { EXECUTE_PRELUDE } from "./prelude.ts";
export { type ExecuteFailure, executeResult, type ExecuteStats } from "./result.ts";
export { effectiveTimeout, type ExecuteOptions, type ExecuteRun, runExecute } from "./run.ts";
export { CallTrace, MAX_TRACE_ENTRIES, type Operation, type TraceEntry } from "./trace.ts";
export { ExecuteTool } from "./tool.ts";
