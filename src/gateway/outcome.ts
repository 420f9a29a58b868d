/**
 * What an internal tool call ends in, as data: the tool's result, or an outage of the upstream
 * that would have served it. The kind is decided where the failure happens (the upstream layer
 * names it in `data.reason` — `timeout`, `unavailable`, `closed` — with the server in
 * `data.server`) and travels here as data, never by message wording. Errors raised before any
 * upstream was reached (`server "x" is gone`) carry only their code, which then decides. Direct callers still receive an outage
 * as an `isError` text result ({@link outageResult}); scripts receive the kind.
 */
import type { CallToolResult } from "../shared/protocol.ts";
import { type ErrorCode, GatewayError } from "../shared/errors.ts";
import { reasonOf, type UpstreamReason } from "../upstream/mod.ts";

/** Why an upstream could not answer: down or gone (`unavailable`), or too slow (`timeout`). */
export type OutageKind = "unavailable" | "timeout";

/** An upstream outage met by one call. */
export interface Outage {
  readonly kind: "outage";
  readonly outage: OutageKind;
  /** The server that failed, when known. */
  readonly server: string | null;
  readonly message: string;
}

/** The typed end of an internal call. */
export type CallOutcome = { readonly kind: "result"; readonly result: CallToolResult } | Outage;

/** Upstream failure reasons that are outages, and their kind. */
const REASON_KINDS: Partial<Record<UpstreamReason, OutageKind>> = {
  timeout: "timeout",
  unavailable: "unavailable",
  closed: "unavailable",
};

/** Error codes that are outages when no reason says more, and their kind. */
const OUTAGE_KINDS: Partial<Record<ErrorCode, OutageKind>> = {
  UPSTREAM_UNAVAILABLE: "unavailable",
  UPSTREAM_TIMEOUT: "timeout",
};

/** The outage a thrown error stands for, or `undefined` when it is no outage. */
export function outageOf(err: unknown): Outage | undefined {
  if (!(err instanceof GatewayError)) return undefined;
  const reason = reasonOf(err);
  const outage = reason ? REASON_KINDS[reason] : OUTAGE_KINDS[err.code];
  if (!outage) return undefined;
  const server = typeof err.data?.server === "string" ? err.data.server : null;
  return { kind: "outage", outage, server, message: err.message };
}

/** The `isError` result a direct caller reads for an outage. */
export function outageResult(outage: Outage): CallToolResult {
  return { content: [{ type: "text", text: outage.message }], isError: true };
}
