/**
 * @module The one context of a call, from the door that took the request down to the leg that
 * moves it upstream. A door builds it once, where the request's identity is known
 * (`enterCall` in `gateway/call-context.ts`); `Gateway.callTool`, `Upstream.request`, the
 * caller's frame and the leg all read this same object. A layer that must change something
 * (a span's own `traceparent`, a task result's longer clock, a 2026-07-28 flow's channel)
 * makes a new context from the old one: nothing is re-assembled field by field on the way down, so a
 * field added here reaches every layer that reads it.
 *
 * It lives in `shared/` because both `gateway/` and `upstream/` read it.
 */
import { type Caller, LOCAL_CALLER } from "./caller.ts";
import type { ClientChannel } from "./client-channel.ts";

/** The protocol era a call's client spoke: a 2025 session, 2026-07-28, or no client (CLI). */
export type Era = "legacy" | "modern" | "local";

/** One progress notification as the call receives it (`progressToken` taken out). */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

/** What listening for a call's abort needs: the part of an `AbortSignal` the frame uses. */
export interface Cancellation {
  readonly aborted: boolean;
  /** `listener` is told once, when the call is cancelled (never when it already was). */
  addEventListener(type: "abort", listener: { handleEvent(): void }): void;
  removeEventListener(type: "abort", listener: { handleEvent(): void }): void;
}

/** A {@link Cancellation} that makes its `AbortSignal` when first asked for it. */
export interface LazyCancellation extends Cancellation {
  readonly signal: AbortSignal;
}

/**
 * The call's signal, made now when its door gave a lazy cancellation: for a layer that hands
 * an `AbortSignal` on. One that only watches for the abort reads {@link cancellationOf}.
 */
export function signalOf(call: CallContext): AbortSignal | undefined {
  return call.signal ?? call.cancellation?.signal;
}

/** What tells of the call's abort, without making a signal. */
export function cancellationOf(call: CallContext): Cancellation | undefined {
  return call.signal ?? call.cancellation;
}

/** Everything one call carries, its caller first. */
export interface CallContext {
  /**
   * Who the call is for (token, globs, profile): what the core checks it against. The one a door
   * made for the request (a 2025 session keeps one between requests); a script's calls carry
   * the caller of the call the script serves.
   */
  readonly caller: Caller;
  /** Aborting cancels the call: the upstream is told, the call gets a `cancelled` error. */
  readonly signal?: AbortSignal;
  /**
   * Instead of `signal`, from a door whose `AbortSignal` is made only when asked for (it costs
   * microseconds, and most calls are never cancelled). A context has one or the other: read
   * them through {@link signalOf} and {@link cancellationOf}.
   */
  readonly cancellation?: LazyCancellation;
  /** Asks the upstream for progress (a `progressToken` is sent) and relays each report. */
  readonly onprogress?: (progress: Progress) => void;
  /** Each progress report starts the timeout again (set with `onprogress` for tool calls). */
  readonly resetTimeoutOnProgress?: boolean;
  /**
   * Milliseconds without an answer (or, with `resetTimeoutOnProgress`, without progress);
   * absent: the server's `timeout`.
   */
  readonly timeoutMs?: number;
  /**
   * `_meta` of the downstream request minus its progress token (which is mapped), merged into
   * the upstream request's `_meta`: the trace context (`traceparent`) travels here.
   */
  readonly meta?: Record<string, unknown>;
  /** True for calls made by macros and operator scripts: hidden tools are reachable. */
  readonly internal?: boolean;
  /**
   * The client behind the call, whichever door it came through: sampling, elicitation and
   * roots requests an upstream sends during the call go back to it. Absent: no client (the CLI,
   * the gateway's own housekeeping).
   */
  readonly client?: ClientChannel;
  /** Id of the downstream request: routed server requests go out on its stream (2025). */
  readonly requestId?: string | number;
  /**
   * Set by `CallPath.callToolOutcome`: an upstream outage throws its typed `GatewayError` instead
   * of becoming an `isError` text result.
   */
  readonly outagesThrow?: boolean;
  /** Script runs this call is nested in (0 or absent: a client's own call). */
  readonly scriptDepth?: number;
  /** For a call a script makes: the era of the client the script serves (see `eraOf`). */
  readonly era?: Era;
}

/**
 * The context of a request no client made (the upstream layer's catalog reads, the gateway's own
 * housekeeping): the unrestricted local caller, so never a default for a client's request.
 */
export const NO_CONTEXT: CallContext = Object.freeze({ caller: LOCAL_CALLER });
