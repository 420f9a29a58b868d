/** Public types of the scripting room: limits, the tool bridge, run options and outcomes. */
import { Buffer } from "node:buffer";
import type { LimitName, ScriptLimits } from "../protocol.ts";

export type { LimitName, ScriptLimits };

/** Defaults: 30 s, 64 MiB, 16 MiB, 16 pictures (docs/SCRIPTING.md, "Lua scripting"). */
export const DEFAULT_LIMITS: ScriptLimits = Object.freeze({
  timeoutMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  transferBytes: 16 * 1024 * 1024,
  pictures: 16,
});

/**
 * An MCP CallToolResult, typed structurally so this room does not import the SDK's types (Deno's
 * type checker cannot resolve their subpath); the SDK's `CallToolResult` is assignable to it.
 */
export interface ToolResult {
  content?: Array<{ type: string; [key: string]: unknown }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  [key: string]: unknown;
}

/** How scripts reach tools: implemented by the gateway, answered in the parent process. */
export interface ToolBridge {
  /**
   * Calls a tool by its gateway name; resolves with the MCP CallToolResult (isError results
   * resolve, not reject). Rejects with GatewayError for unknown tools, outages etc.
   */
  callTool(name: string, args: Record<string, unknown>, ctx: HostCallContext): Promise<ToolResult>;
  /** Every tool name the script may call. */
  listTools(): string[];
}

/** Context handed to a host function. */
export interface HostCallContext {
  /** Aborted when the script ends, is killed, or the call passes its deadline. */
  signal: AbortSignal;
  /** Milliseconds left before the script's deadline. */
  remainingMs: number;
  /**
   * Registers a callback told whether the answer reached the script (true) or was refused by
   * the run's transfer budget (false), so traces record what the script really received.
   */
  onDelivery(fn: (delivered: boolean) => void): void;
}

/**
 * Bytes a host function hands to the script as a buffer handle (e.g. a capture for
 * `mcp.image`). Only instances of this class become buffers: no JSON value an upstream sends can.
 */
export class ScriptBuffer {
  /**
   * The key of the one-entry object a buffer crosses the worker channel as. Random per process
   * and told to each worker in its run message, so no value an upstream sends can forge it.
   */
  static readonly MARKER = `$buffer:${crypto.randomUUID()}`;
  readonly base64: string;
  constructor(bytes: Uint8Array | string) {
    this.base64 = typeof bytes === "string"
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  }

  /** The channel form (JSON.stringify calls this). */
  toJSON(): Record<string, string> {
    return { [ScriptBuffer.MARKER]: this.base64 };
  }
}

/**
 * A function the parent answers for the script (`host.call(name, args)` in Lua). Takes and returns
 * JSON values; a {@link ScriptBuffer} anywhere in the answer reaches Lua as a buffer handle.
 */
export type HostFunction = (args: unknown, ctx: HostCallContext) => unknown;

/** Options of one run. */
export interface RunOptions {
  /** Tools for `mcp.call`/`mcp.listTools`; without it those calls answer errors. */
  bridge?: ToolBridge;
  /** Overrides of the host's limits for this run. */
  limits?: Partial<ScriptLimits>;
  /** JSON values set as Lua globals before the prelude runs (e.g. `args`). */
  globals?: Record<string, unknown>;
  /** Functions reachable from Lua as `host.call(name, args)` (and `host.try`, `host.start`). */
  hostFunctions?: Record<string, HostFunction>;
  /** Lua source run before the script, with the `host` global visible (it is hidden afterwards). */
  prelude?: string;
  /** Keep `host` visible to the script itself (default false). */
  exposeHost?: boolean;
  /** Chunk name used in error positions (default "script"). */
  chunkName?: string;
  /** Aborting ends the run like a time limit would, killing the worker if needed. */
  signal?: AbortSignal;
  /**
   * How many script runs wait for this one (0 for a run a client started; 1 for a macro called
   * from `execute`, …). Each depth has its own worker slots, so a run never waits for a worker
   * that one of its callers holds.
   */
  depth?: number;
  /** Token whose share of the workers this run counts against (`null`: no share applies). */
  owner?: string | null;
}

/** Counters of one run. */
export interface ScriptStats {
  elapsedMs: number;
  toolCalls: number;
  hostCalls: number;
  /** JSON bytes of tool and host results delivered to the script. */
  bytesIn: number;
  /**
   * Which run of its worker's engine this was: 1 on a new engine, 2 and up on an engine reused
   * after clean runs (absent when the worker answered nothing).
   */
  engineRun?: number;
}

/** A finished run. `value` is JSON (image values kept as tables for composition). */
export interface ScriptSuccess {
  ok: true;
  value: unknown;
  output: string;
  emitted: unknown[];
  stats: ScriptStats;
}

/** A failed run: a Lua error, a refused return value, or a limit. */
export interface ScriptFailure {
  ok: false;
  message: string;
  /** Line in the script (or prelude) the error points at. */
  line?: number;
  /** Chunk the line belongs to ("script", "prelude", …). */
  chunk?: string;
  limit?: LimitName;
  output: string;
  emitted: unknown[];
  stats: ScriptStats;
}

/** Outcome of {@link RunOptions}-driven run. */
export type ScriptOutcome = ScriptSuccess | ScriptFailure;
