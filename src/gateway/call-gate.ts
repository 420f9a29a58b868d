/**
 * The seam where per-caller call limits plug into the core. Every tool call — from a client, a
 * batch, a macro or an `execute` script (`options.internal`), plain or task-augmented
 * (`Gateway.createTask`, either era) — passes the gate once, so limits enforced there count
 * calls, not HTTP requests. The
 * core knows nothing of tokens' rates; the HTTP room supplies the gate.
 */
import type { Caller } from "./types.ts";

/** What a gate learns about a call before it runs. */
export interface GatedCall {
  /** Exposed tool name. */
  readonly tool: string;
  /** True for tools the gateway serves itself (meta-tools, macros, `execute`). */
  readonly local: boolean;
}

/** What ends an admitted call's hold on its gate; `undefined`: it holds nothing. */
export type Release = (() => void) | undefined;

/** Admits tool calls. */
export interface CallGate {
  /**
   * Admits one call of `caller`, or throws a `GatewayError` (`RATE_LIMITED`) naming the limit.
   * Returns the function to call once the call has finished (idempotent), or `undefined` when
   * the call holds nothing (no concurrency slot) — at once when the gate decides in process, or
   * as a promise (rejected with the refusal) when it asks a store shared by a cluster's
   * instances.
   */
  acquire(caller: Caller, call: GatedCall): Release | Promise<Release>;
}
