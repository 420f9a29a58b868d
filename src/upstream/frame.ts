/**
 * What a call to an upstream means, written once for every caller: the timeout (restarted by
 * progress when asked), cancellation by the caller, `_meta` merged into the request, the result
 * checked, and the error each way of failing becomes. A {@link CallLeg} only moves the request;
 * wrapped here, the lean stdio leg, the SDK client's leg and any later one behave alike.
 *
 * A call in flight is one object ({@link FramedCall}): it is the leg's options and the way it
 * settles the call (`answered`, `failed`), the listener on the caller's signal (`handleEvent`)
 * and its own deadline on its connection's shared timer (`deadlines.ts`), so a call allocates
 * that object, its promise and what the leg needs — no closures, no `setTimeout` of its own.
 */
import {
  type CallContext,
  type Cancellation,
  cancellationOf,
  type Progress,
} from "../shared/call-context.ts";
import type { CallLeg, InputRelay, LegOptions, RequestTerms, UpstreamCaller } from "./caller.ts";
import { Deadline, Deadlines } from "./deadlines.ts";
import {
  cancelled,
  CANCELLED_BY_CLIENT,
  malformed,
  reasonOf,
  timedOut,
  timeoutNotice,
  unavailable,
} from "./call-errors.ts";
import { messageOf } from "../shared/errors.ts";

/**
 * Wraps a leg into the caller of one connection to `server`; the connection's calls share one
 * timer for their deadlines (owned here, so nothing outlives the connection's caller).
 */
export function framed(leg: CallLeg, server: string): UpstreamCaller {
  const deadlines = new Deadlines();
  return {
    kind: leg.kind,
    call: (method, params, call, terms) =>
      frame(leg, server, deadlines, method, params, call, terms),
  };
}

function frame(
  leg: CallLeg,
  server: string,
  deadlines: Deadlines,
  method: string,
  params: Record<string, unknown> | undefined,
  call: CallContext,
  terms: RequestTerms,
): Promise<unknown> {
  // Listened to as it is: a door's lazy cancellation makes no signal for it.
  const signal = cancellationOf(call);
  if (signal?.aborted) return Promise.reject(cancelled(server));
  const { promise, resolve, reject } = Promise.withResolvers<unknown>();
  const timeoutMs = call.timeoutMs ?? terms.timeoutMs;
  const framed = new FramedCall(leg, server, method, timeoutMs, deadlines, resolve, reject);
  framed.signalled = signal;
  framed.terms = terms;
  // No `once`: the call removes its listener when it settles, and ending twice is a no-op.
  signal?.addEventListener("abort", framed);
  deadlines.add(framed, framed.timeoutMs);
  const wanted = call.onprogress;
  if (wanted) framed.onprogress = relay(framed, wanted, call.resetTimeoutOnProgress === true);
  if (terms.input) framed.input = terms.input;
  try {
    leg.send(method, withMeta(params, call.meta), framed);
  } catch (err) {
    framed.failed(err);
  }
  return promise;
}

/**
 * The leg's progress callback of `framed`: a function of its own, so a call that wants no
 * progress makes no closure (nor the scope one would hold).
 */
function relay(
  framed: FramedCall,
  wanted: (progress: Progress) => void,
  reset: boolean,
): (progress: Progress) => void {
  return (progress) => framed.progressed(progress, wanted, reset);
}

/** One call in flight: the leg's options, the abort listener and the call's deadline. */
class FramedCall extends Deadline implements LegOptions {
  onprogress?: (progress: Progress) => void;
  input?: InputRelay;
  ticket?: string;
  /** The caller's signal, listened to until the call settles. */
  signalled: Cancellation | undefined;
  terms: RequestTerms | undefined;
  /** Made only for a leg that reads `signal`: an AbortController costs microseconds. */
  #stop: AbortController | undefined;
  /** The notice the call ended early with. */
  #stopped: string | undefined;
  #done = false;

  constructor(
    readonly leg: CallLeg,
    readonly server: string,
    readonly method: string,
    readonly timeoutMs: number,
    readonly deadlines: Deadlines,
    readonly resolve: (value: unknown) => void,
    readonly reject: (reason: unknown) => void,
  ) {
    super();
  }

  get signal(): AbortSignal {
    if (!this.#stop) {
      this.#stop = new AbortController();
      if (this.#stopped !== undefined) this.#stop.abort(this.#stopped);
    }
    return this.#stop.signal;
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.#end(cancelled(this.server), CANCELLED_BY_CLIENT);
  }

  /** The deadline passed without an answer (or, when asked, without progress). */
  expire(): void {
    this.#end(timedOut(this.server, this.timeoutMs), timeoutNotice(this.timeoutMs));
  }

  /** A progress report from the leg: relayed until the call settles, restarting its clock. */
  progressed(progress: Progress, wanted: (progress: Progress) => void, reset: boolean): void {
    if (this.#done) return;
    if (reset) this.deadlines.renew(this);
    wanted(progress);
  }

  answered(result: unknown): void {
    if (!this.#settle()) return;
    const check = this.terms!.check;
    if (check) {
      const checked = check(result);
      if (checked.ok) this.resolve(checked.value);
      else this.reject(malformed(this.server, this.method, checked.problem));
    } else if (typeof result === "object" && result !== null) {
      this.resolve(result);
    } else {
      const problem = `expected an object, got ${JSON.stringify(result)}`;
      this.reject(malformed(this.server, this.method, problem));
    }
  }

  failed(err: unknown): void {
    if (!this.#settle()) return;
    // A leg names every failure; anything else is a bug in it, told as what it is.
    this.reject(
      reasonOf(err) ? err : unavailable(this.server, `could not be reached (${messageOf(err)})`),
    );
  }

  #settle(): boolean {
    if (this.#done) return false;
    this.#done = true;
    this.deadlines.cancel(this);
    this.signalled?.removeEventListener("abort", this);
    return true;
  }

  /** Ends the call early: the leg tells the upstream why, the caller gets `err`. */
  #end(err: unknown, notice: string): void {
    if (!this.#settle()) return;
    this.#stopped = notice;
    this.leg.stop?.(this, notice);
    this.#stop?.abort(notice);
    this.reject(err);
  }
}

/** `params` with `meta` merged into its `_meta` (a new object; the caller's stays as it was). */
function withMeta(
  params: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!meta) return params;
  const own = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...own, ...meta } };
}
