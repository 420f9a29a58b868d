/**
 * The client behind a call, as the core reaches it. A door hands the core one channel per call
 * (a 2025 session, a 2026-07-28 request flow, or a 2026-07-28 client that can be asked nothing)
 * and the core asks it — sends a server-to-client request, reads what the client declared,
 * keys the call's own processes — without knowing which door it came through. A new door is a
 * new implementation of this interface, nothing in the core.
 */
import type { ClientCapabilities } from "./protocol.ts";

/** How one server-to-client request is sent (a channel uses what its transport can carry). */
export interface ChannelRequestOptions {
  /** The upstream server that asks: named in a refusal. */
  readonly server: string;
  /** Aborted when the upstream cancels its request. */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds the client has to answer (the server's `timeout`). */
  readonly timeoutMs?: number | undefined;
  /** The downstream request the server-to-client request belongs to (its stream, in 2025). */
  readonly relatedRequestId?: string | number | undefined;
}

/**
 * Whoever answers server-to-client requests: a call's client, or what follows a task for a
 * 2026-07-28 client.
 */
export interface RequestAnswerer {
  /**
   * Sends `method` to the client and answers its result; rejects with the revision's own
   * error when the client did not declare it can answer.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options?: ChannelRequestOptions,
  ): Promise<unknown>;
}

/**
 * The client of one call. The object itself keys the call's own processes of
 * `isolation: session` servers: each channel has its own.
 */
export interface ClientChannel extends RequestAnswerer {
  /** The protocol era the client speaks. */
  readonly era: "legacy" | "modern";
  /** What the client declared it can be asked (a 2026-07-28 upstream is told). */
  readonly capabilities: ClientCapabilities | undefined;
  /** False for a client that can be asked nothing: each request is refused. */
  readonly askable: boolean;
  /** True once the client is gone: nothing more is routed to it. */
  readonly closed: boolean;
  /**
   * True for a channel that outlives its calls (a 2025 session): its own processes stay until
   * it closes (its door releases them), it may be kept for a task's status notifications, and
   * a script's nested calls may still reach it. False for one call's own (a 2026-07-28 flow):
   * its processes end with the call.
   */
  readonly lasting: boolean;
  /** Sends a notification related to `relatedRequestId`; a channel that carries none drops it. */
  notify(
    method: string,
    params: Record<string, unknown>,
    relatedRequestId?: string | number,
  ): void;
}
