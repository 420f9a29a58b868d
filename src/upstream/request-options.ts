/**
 * What callers of an upstream pass (the names of the SDK's `RequestOptions`, so call sites read
 * the same), turned into the {@link CallerOptions} every caller takes.
 */
import {
  type AnySchema,
  getParseErrorMessage,
  safeParse,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { CallerOptions, InputRelay, Progress, ResultCheck } from "./caller.ts";

/** Options of one request to an upstream. */
export interface UpstreamRequestOptions {
  signal?: AbortSignal;
  onprogress?: (progress: Progress) => void;
  /** Milliseconds; the server's `timeout` when absent. */
  timeout?: number;
  resetTimeoutOnProgress?: boolean;
  /** Merged into the request's `_meta`. */
  meta?: Record<string, unknown>;
  /** Answers the upstream's input requests of this call (2026-07-28 upstreams). */
  input?: InputRelay;
}

/** A result check from a zod schema (the SDK's result schemas); parsed values pass on. */
export function schemaCheck(schema: AnySchema): ResultCheck {
  return (result) => {
    const parsed = safeParse(schema, result);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, problem: getParseErrorMessage(parsed.error) };
  };
}

/** The caller options of one request. */
export function callerOptions(
  options: UpstreamRequestOptions,
  timeoutMs: number,
  schema: AnySchema | undefined,
): CallerOptions {
  return {
    timeoutMs: options.timeout ?? timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onprogress ? { onprogress: options.onprogress } : {}),
    ...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true } : {}),
    ...(options.meta ? { meta: options.meta } : {}),
    ...(schema ? { check: schemaCheck(schema) } : {}),
    ...(options.input ? { input: options.input } : {}),
  };
}
