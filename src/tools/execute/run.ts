/**
 * One `execute` run: checks the tool's arguments, runs the script with the `tools` prelude on
 * the script host, and assembles the result with its calls trace.
 */
import type { ScriptHost, ScriptLimits, ScriptOutcome, ToolResult } from "../../scripting/mod.ts";
import { type ExecuteDeps, runCalls } from "./bridge.ts";
import { EXECUTE_PRELUDE } from "./prelude.ts";
import { executeResult } from "./result.ts";
import { CallTrace } from "./trace.ts";

/** Options of {@link runExecute}. */
export interface ExecuteOptions {
  /** The configured limits; `timeoutMs` is also the ceiling of `timeout_ms`. */
  limits: ScriptLimits;
  /** Aborting (the caller cancelled) stops the script. */
  signal?: AbortSignal;
  /** Script runs this one is nested in (a macro calling execute: 1). */
  depth?: number;
  /** The caller's token, whose share of the workers the run counts against. */
  owner?: string | null;
}

/** A finished run: the tool result and how the script ended, for metrics. */
export interface ExecuteRun {
  result: ToolResult;
  /** `undefined` when the arguments were refused and no script ran. */
  outcome?: ScriptOutcome;
  /** True when the result was refused for carrying too many pictures. */
  tooManyPictures?: boolean;
}

/** The effective time limit: `timeout_ms` lowered to the ceiling; a bad value is a message. */
export function effectiveTimeout(requested: unknown, ceilingMs: number): number | string {
  if (requested === undefined || requested === null) return ceilingMs;
  if (typeof requested !== "number" || !Number.isInteger(requested) || requested < 1) {
    return `execute: timeout_ms must be a positive integer of milliseconds, not ${
      JSON.stringify(requested)
    }`;
  }
  return Math.min(requested, ceilingMs);
}

function refusal(text: string): ExecuteRun {
  return { result: { content: [{ type: "text", text }], isError: true } };
}

/** Runs the `code` of an `execute` call; failures are `isError` results, never throws for them. */
export async function runExecute(
  host: ScriptHost,
  args: Record<string, unknown>,
  deps: ExecuteDeps,
  options: ExecuteOptions,
): Promise<ExecuteRun> {
  const { code } = args;
  if (typeof code !== "string" || code.trim() === "") {
    return refusal("execute: code must be a non-empty string of Lua source");
  }
  const timeoutMs = effectiveTimeout(args.timeout_ms, options.limits.timeoutMs);
  if (typeof timeoutMs === "string") return refusal(timeoutMs);
  const trace = new CallTrace();
  const { bridge, hostFunctions } = runCalls(deps, trace);
  const started = performance.now();
  const outcome = await host.run(code, {
    bridge,
    hostFunctions,
    prelude: EXECUTE_PRELUDE,
    limits: { ...options.limits, timeoutMs },
    chunkName: "script",
    ...(options.signal ? { signal: options.signal } : {}),
    depth: options.depth ?? 0,
    owner: options.owner ?? null,
  });
  const calls = trace.close();
  const stats = {
    elapsed_ms: Math.round(performance.now() - started),
    bytes_transferred: outcome.stats.bytesIn,
    operations: calls.length + trace.dropped,
    ...(trace.dropped > 0 ? { operations_dropped: trace.dropped } : {}),
    timeout_ms: timeoutMs,
  };
  const result = executeResult(outcome, calls, stats, options.limits.pictures);
  const tooManyPictures = outcome.ok && result.isError === true;
  return { result, outcome, ...(tooManyPictures ? { tooManyPictures } : {}) };
}
