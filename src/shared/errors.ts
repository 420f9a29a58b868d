/**
 * The one local error type. Codes are strings; they become JSON-RPC errors in
 * {@link toJsonRpcError} and HTTP statuses in {@link httpStatusOf} — the only two places that map
 * them to the wire.
 */

/** Every code a {@link GatewayError} may carry. */
export const ERROR_CODES = [
  "CONFIG_INVALID",
  "USAGE",
  "UPSTREAM_UNAVAILABLE",
  "UPSTREAM_TIMEOUT",
  "UPSTREAM_ERROR",
  "TOOL_NOT_FOUND",
  "PROMPT_NOT_FOUND",
  "RESOURCE_NOT_FOUND",
  "INVALID_ARGUMENTS",
  "FORBIDDEN",
  "UNAUTHORIZED",
  "RATE_LIMITED",
  "TOO_LARGE",
  "SCRIPT_ERROR",
  "SCRIPT_LIMIT",
  /** A result filter refused to let a tool result or resource read through. */
  "FILTER_BLOCKED",
  "IMAGE_INVALID",
  "VFS_DENIED",
  /** The client or upstream that would have to serve a request does not support it. */
  "UNSUPPORTED",
  "INTERNAL",
] as const;

/** A string error code. */
export type ErrorCode = typeof ERROR_CODES[number];

/** The gateway's own error: a string code, a message for humans, an optional cause. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  /** Extra data carried to the wire (e.g. YAML paths of config errors). */
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; data?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.data = options?.data;
  }
}

/**
 * JSON-RPC error codes used on the wire. Besides JSON-RPC's own and the spec's "resource not
 * found", the gateway's codes sit in -32003…-32019, part of the range the 2026-07-28 revision
 * leaves to implementations (-32000…-32019), each with one meaning. Codes the spec and the SDKs already give a meaning are not reused: -32000
 * (connection closed) and -32001 (request timeout; "session not found" on the SDK's HTTP
 * transport, which the gateway's session layer answers too), -32002 (resource not found before
 * 2026-07-28), and -32020…-32099 (the spec's own: header mismatch, missing client capability,
 * unsupported protocol version, URL elicitation required, …).
 */
export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** The spec's "resource not found" for 2025 revisions (2026-07-28 answers -32602). */
  RESOURCE_NOT_FOUND: -32002,
  /** The token may not do this (a tool outside its globs, a foreign session). */
  FORBIDDEN: -32003,
  /** Over the token's call rate or concurrency; `data.retryAfter` says when to retry. */
  RATE_LIMITED: -32004,
  /** The upstream that would serve the request is down or gone. */
  UPSTREAM_UNAVAILABLE: -32005,
  /** The upstream did not answer within its `timeout`. */
  UPSTREAM_TIMEOUT: -32006,
  /** A result filter refused the result (`data.reason` says which filter and why). */
  FILTER_BLOCKED: -32007,
} as const;

const RPC_CODE: Record<ErrorCode, number> = {
  CONFIG_INVALID: JSONRPC.INTERNAL_ERROR,
  USAGE: JSONRPC.INVALID_PARAMS,
  UPSTREAM_UNAVAILABLE: JSONRPC.UPSTREAM_UNAVAILABLE,
  UPSTREAM_TIMEOUT: JSONRPC.UPSTREAM_TIMEOUT,
  UPSTREAM_ERROR: JSONRPC.INTERNAL_ERROR,
  TOOL_NOT_FOUND: JSONRPC.INVALID_PARAMS,
  PROMPT_NOT_FOUND: JSONRPC.INVALID_PARAMS,
  RESOURCE_NOT_FOUND: JSONRPC.RESOURCE_NOT_FOUND,
  INVALID_ARGUMENTS: JSONRPC.INVALID_PARAMS,
  FORBIDDEN: JSONRPC.FORBIDDEN,
  UNAUTHORIZED: JSONRPC.FORBIDDEN,
  RATE_LIMITED: JSONRPC.RATE_LIMITED,
  TOO_LARGE: JSONRPC.INVALID_REQUEST,
  SCRIPT_ERROR: JSONRPC.INTERNAL_ERROR,
  SCRIPT_LIMIT: JSONRPC.INTERNAL_ERROR,
  FILTER_BLOCKED: JSONRPC.FILTER_BLOCKED,
  IMAGE_INVALID: JSONRPC.INVALID_PARAMS,
  VFS_DENIED: JSONRPC.INVALID_PARAMS,
  UNSUPPORTED: JSONRPC.METHOD_NOT_FOUND,
  INTERNAL: JSONRPC.INTERNAL_ERROR,
};

/** A JSON-RPC error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Maps any thrown value to a JSON-RPC error. Errors that already carry a numeric JSON-RPC code
 * (an upstream's own `McpError`) keep it, so upstream answers pass through unchanged.
 */
export function toJsonRpcError(err: unknown): JsonRpcErrorObject {
  if (err instanceof GatewayError) {
    return {
      code: RPC_CODE[err.code],
      message: err.message,
      data: { code: err.code, ...err.data },
    };
  }
  if (err && typeof err === "object" && typeof (err as { code?: unknown }).code === "number") {
    const e = err as { code: number; message?: string; data?: unknown };
    return { code: e.code, message: stripMcpPrefix(String(e.message ?? "error")), data: e.data };
  }
  return {
    code: JSONRPC.INTERNAL_ERROR,
    message: err instanceof Error ? err.message : String(err),
  };
}

/** The SDK prefixes `MCP error -32602: ` to messages of errors it rebuilds; keep the original. */
function stripMcpPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}

const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  TOO_LARGE: 413,
  USAGE: 400,
  RESOURCE_NOT_FOUND: 404,
  UPSTREAM_UNAVAILABLE: 503,
};

/**
 * The wait (seconds) a `429` or `503` advises in `Retry-After` when the limit met knows no
 * better one: every such answer carries one, so a client backs off instead of hammering.
 */
export const RETRY_AFTER_S = 5;

/** The HTTP status for an error that ends a request before it reaches the MCP layer. */
export function httpStatusOf(err: unknown): number {
  return err instanceof GatewayError ? HTTP_STATUS[err.code] ?? 500 : 500;
}

/** A short message from any thrown value. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An `Error` carrying a JSON-RPC code and data, in the shape the SDK's protocol layer sends. */
export class WireError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(rpc: JsonRpcErrorObject) {
    super(rpc.message);
    this.code = rpc.code;
    this.data = rpc.data;
  }
}

/** Runs a request handler, turning anything it throws into a {@link WireError}. */
export async function onWire<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new WireError(toJsonRpcError(err));
  }
}
