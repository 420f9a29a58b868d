/**
 * Every error an upstream call can end in, built here and only here. Each carries why it
 * failed as data (`data.reason` on a `GatewayError`, `reason` on an {@link UpstreamRpcError}),
 * decided where the failure happened; code further up branches on {@link reasonOf}, never on a
 * message's wording.
 */
import { GatewayError } from "../shared/errors.ts";

/**
 * Why an upstream call failed: no answer in time (`timeout`), the server could not be reached
 * or is down (`unavailable`), the connection ended while the call waited (`closed`), the answer
 * broke the protocol (`protocol`), the caller gave up (`cancelled`), or the server answered
 * with a JSON-RPC error of its own (`rpc`).
 */
export const UPSTREAM_REASONS = [
  "timeout",
  "unavailable",
  "closed",
  "protocol",
  "cancelled",
  "rpc",
] as const;

/** One of {@link UPSTREAM_REASONS}. */
export type UpstreamReason = typeof UPSTREAM_REASONS[number];

/** An upstream answered with a JSON-RPC error: its code, message and data pass through. */
export class UpstreamRpcError extends Error {
  readonly reason = "rpc" as const;
  readonly server: string;
  readonly code: number;
  readonly data: unknown;
  constructor(server: string, error: { code: number; message: string; data?: unknown }) {
    super(error.message);
    this.name = "UpstreamRpcError";
    this.server = server;
    this.code = error.code;
    this.data = error.data;
  }
}

/** The reason an error carries, when the upstream layer built it. */
export function reasonOf(err: unknown): UpstreamReason | undefined {
  if (err instanceof UpstreamRpcError) return "rpc";
  if (!(err instanceof GatewayError)) return undefined;
  const reason = err.data?.reason;
  return (UPSTREAM_REASONS as readonly unknown[]).includes(reason)
    ? reason as UpstreamReason
    : undefined;
}

/** No answer within `ms`. */
export function timedOut(server: string, ms: number): GatewayError {
  return new GatewayError("UPSTREAM_TIMEOUT", `server "${server}" did not answer within ${ms}ms`, {
    data: { server, reason: "timeout", timeoutMs: ms },
  });
}

/**
 * The server cannot be reached: `server "x" ${why}`. `delivered: false` says the request surely
 * never reached it (safe to send again over a fresh connection).
 */
export function unavailable(
  server: string,
  why: string,
  extra: { lastError?: string | null; delivered?: boolean } = {},
): GatewayError {
  return new GatewayError("UPSTREAM_UNAVAILABLE", `server "${server}" ${why}`, {
    data: {
      server,
      reason: "unavailable",
      ...(extra.lastError ? { lastError: extra.lastError } : {}),
      ...(extra.delivered === false ? { delivered: false } : {}),
    },
  });
}

/** The connection had already ended when the call was made. */
export function notConnected(server: string): GatewayError {
  return unavailable(server, "is not connected");
}

/** The connection ended while the call waited for its answer. */
export function closed(server: string): GatewayError {
  return new GatewayError(
    "UPSTREAM_UNAVAILABLE",
    `server "${server}" closed the connection during the call`,
    { data: { server, reason: "closed" } },
  );
}

/** The answer is not what the protocol allows for `method`. */
export function malformed(server: string, method: string, problem: string): GatewayError {
  return new GatewayError(
    "UPSTREAM_ERROR",
    `server "${server}" answered ${method} with a malformed result: ${problem}`,
    { data: { server, reason: "protocol", method } },
  );
}

/** The caller cancelled the call. */
export function cancelled(server: string): GatewayError {
  return new GatewayError("UPSTREAM_ERROR", `the call to server "${server}" was cancelled`, {
    data: { server, reason: "cancelled" },
  });
}

/** The text sent upstream in `notifications/cancelled` when the caller cancelled. */
export const CANCELLED_BY_CLIENT = "cancelled by the client";

/** The text sent upstream in `notifications/cancelled` when the call timed out. */
export function timeoutNotice(ms: number): string {
  return `request timed out after ${ms}ms`;
}
