/**
 * The error codes `tools.call` answers with, and how thrown errors map to them. Codes are
 * lower-case words an agent can branch on; the message carries the detail.
 */
import type { OutageKind } from "../../gateway/mod.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";

/** Every code `tools.call` may put in `error.code`. */
export const CALL_ERROR_CODES = [
  /** No tool by that path for this caller (`error.suggestions` lists near names). */
  "tool_not_found",
  /** The caller's token does not allow the tool. */
  "forbidden",
  /** Arguments refused before the call (ceilings, not a table) or by the upstream. */
  "invalid_arguments",
  /** The tool answered an `isError` result (`data` holds it). */
  "tool_error",
  /** The upstream failed: down, crashed, or answered a protocol error. */
  "upstream_error",
  /** The upstream did not answer within its timeout. */
  "timeout",
  /** The result would pass the script's transfer budget. */
  "intermediate_result_too_large",
  /** The script ended while the call ran (trace entries only). */
  "cancelled",
  /** The token is over its call rate or concurrency limit; the message says which and when. */
  "rate_limited",
] as const;

/** One of {@link CALL_ERROR_CODES}. */
export type CallErrorCode = typeof CALL_ERROR_CODES[number];

/** The code of each outage kind the gateway reports (the kind is data; no wording is read). */
export const OUTAGE_CODES: Record<OutageKind, CallErrorCode> = {
  unavailable: "upstream_error",
  timeout: "timeout",
};

/** JSON-RPC codes an upstream may answer with that have a code of their own here. */
const RPC_INVALID_PARAMS = -32602;
const RPC_REQUEST_TIMEOUT = -32001;

/** Maps a thrown error to a call error code. `aborted`: the run's signal had fired. */
export function callErrorCode(err: unknown, aborted = false): CallErrorCode {
  if (aborted) return "cancelled";
  if (err instanceof GatewayError) {
    if (err.data?.code === "intermediate_result_too_large") return "intermediate_result_too_large";
    switch (err.code) {
      case "TOOL_NOT_FOUND":
        return "tool_not_found";
      case "FORBIDDEN":
      case "UNAUTHORIZED":
        return "forbidden";
      case "INVALID_ARGUMENTS":
        return "invalid_arguments";
      case "UPSTREAM_TIMEOUT":
        return "timeout";
      case "RATE_LIMITED":
        return "rate_limited";
      default:
        return "upstream_error";
    }
  }
  const rpc = (err as { code?: unknown } | null)?.code;
  if (rpc === RPC_INVALID_PARAMS) return "invalid_arguments";
  if (rpc === RPC_REQUEST_TIMEOUT) return "timeout";
  return "upstream_error";
}

/** The `{ code, message, suggestions? }` table a failed call carries. */
export interface CallError {
  code: CallErrorCode;
  message: string;
  suggestions?: string[];
}

/** Builds the error of a thrown failure; the SDK's `MCP error -32602: ` prefix is dropped. */
export function callErrorOf(err: unknown, aborted = false): CallError {
  const message = messageOf(err).replace(/^MCP error -?\d+: /, "");
  const error: CallError = { code: callErrorCode(err, aborted), message };
  const near = err instanceof GatewayError ? err.data?.suggestions : undefined;
  if (Array.isArray(near) && near.length > 0) error.suggestions = near.map(String);
  return error;
}
