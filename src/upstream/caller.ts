/**
 * The one seam between an upstream connection and everything that calls it. Each connection
 * picks its caller once, when it connects (the lean stdio caller for a stdio child, the SDK
 * client's for HTTP and SSE); every request to that upstream goes through it. A caller only
 * moves one request and its progress over its wire ({@link CallLeg}); what a call means —
 * timeout, cancellation, progress resetting the clock, result checks, the error each failure
 * becomes — is decided once, in `frame.ts`, for every caller alike.
 */
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext, Progress } from "../shared/call-context.ts";

export type { Progress };

/** A check of a result's shape: the value to hand on, or what is wrong with it. */
export type ResultCheck = (
  result: unknown,
) => { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * What one request is to the server it goes to, apart from the call it serves (which is the
 * {@link CallContext}, handed down as it came): the server's own clock, the shape its answer
 * must have, and who answers its input rounds. An upstream keeps one of these for the common
 * request (no check, no relay), so a tool call allocates none.
 */
export interface RequestTerms {
  /** The server's `timeout` in milliseconds: used when the context sets no `timeoutMs`. */
  readonly timeoutMs: number;
  /** Checks the result; without it any JSON object passes through untouched. */
  readonly check?: ResultCheck | undefined;
  /** Answers the upstream's input requests of this very call (see {@link InputRelay}). */
  readonly input?: InputRelay | undefined;
}

/**
 * Answers one input request an upstream makes as part of a call (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`) on behalf of the client whose call it is. A 2026-07-28
 * upstream's `input_required` rounds belong to exactly one request, so a caller that is given
 * this sends them there and nowhere else.
 */
export type InputRelay =
  & ((
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ) => Promise<unknown>)
  & {
    /** What the client behind the call declared it can be asked, when known. */
    readonly capabilities?: ClientCapabilities | undefined;
  };

/** Sends requests to one connected upstream. */
export interface UpstreamCaller {
  /** Which implementation serves this connection (`lean`, `sdk`, …), for logs and tests. */
  readonly kind: string;
  /**
   * Sends `method` and resolves with its result. Rejects only with the errors of
   * `call-errors.ts`: a `GatewayError` carrying `data.reason` (`timeout`, `unavailable`, `closed`,
   * `protocol`, `cancelled`), or an `UpstreamRpcError` (the upstream's own JSON-RPC error,
   * code and data kept).
   */
  call(
    method: string,
    params: Record<string, unknown> | undefined,
    call: CallContext,
    terms: RequestTerms,
  ): Promise<unknown>;
}

/**
 * What a leg is told about one request, and how it answers: its private wire contract with the
 * frame. It stays apart from the {@link CallContext} because the frame owns the call's end: the
 * leg settles the request here (`answered` or `failed`, once; a later settle is ignored), its
 * `signal` is made lazily (an `AbortController` per call costs microseconds on the hot path), and
 * a leg with a {@link CallLeg.stop} learns of an early end with no signal at all.
 */
export interface LegOptions {
  /**
   * Aborted when the call ends early (timeout, the caller cancelled); `signal.reason` is the
   * text to send upstream in `notifications/cancelled`. The leg sends that notification with
   * the request's own id and forgets the request. The signal is made when first read: a leg
   * that has a `stop` instead pays nothing for it on the hot path.
   */
  readonly signal: AbortSignal;
  /** Present when progress is wanted: the leg sends a `progressToken` and reports here. */
  onprogress?: (progress: Progress) => void;
  /** Present when the call's own client answers its input requests. */
  input?: InputRelay;
  /** The leg's own name for this request while it is in flight (its JSON-RPC id), for `stop`. */
  ticket?: string;
  /** The upstream's raw `result`: the frame checks it and answers the call. */
  answered(result: unknown): void;
  /** The request failed, with an error of `call-errors.ts` naming why. */
  failed(err: unknown): void;
}

/**
 * The wire half of a caller: moves one request and its progress over one connection, and
 * settles it through its {@link LegOptions}: `answered` with the raw `result`, or `failed` with
 * an error of `call-errors.ts` naming why (`closed`, `unavailable`, an `UpstreamRpcError`). A
 * new kind of connection (another client, another protocol revision) implements this and is
 * wrapped by `framed()` in `frame.ts`, so its calls time out, cancel and fail exactly like
 * every other caller's.
 */
export interface CallLeg {
  readonly kind: string;
  send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: LegOptions,
  ): void;
  /**
   * The request `options` ended early (timeout, the caller cancelled), already settled: send
   * `notifications/cancelled` with `notice` and forget it. Called before `options.signal` (if
   * it was read) aborts; a leg without `stop` goes by the signal alone.
   */
  stop?(options: LegOptions, notice: string): void;
}
