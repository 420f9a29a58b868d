/**
 * What a call to an upstream means, written once for every caller: the timeout (restarted by
 * progress when asked), cancellation by the caller, `_meta` merged into the request, the result
 * checked, and the error each way of failing becomes. A {@link CallLeg} only moves the request;
 * wrapped here, the lean stdio leg, the SDK client's leg and any later one behave alike.
 */
import type { CallContext, Progress } from "../shared/call-context.ts";
import type { CallLeg, LegOptions, RequestTerms, UpstreamCaller } from "./caller.ts";
import {
  cancelled,
  CANCELLED_BY_CLIENT,
  malformed,
  reasonOf,
  timedOut,
  timeoutNotice,
  unavailable,
} from "./failure.ts";
import { messageOf } from "../shared/errors.ts";

/** The longest delay a timer takes (a larger one fires at once on every runtime). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Wraps a leg into the caller of one connection to `server`. */
export function framed(leg: CallLeg, server: string): UpstreamCaller {
  return {
    kind: leg.kind,
    call: (method, params, call, terms) => frame(leg, server, method, params, call, terms),
  };
}

function frame(
  leg: CallLeg,
  server: string,
  method: string,
  params: Record<string, unknown> | undefined,
  call: CallContext,
  terms: RequestTerms,
): Promise<unknown> {
  const signal = call.signal;
  const timeoutMs = call.timeoutMs ?? terms.timeoutMs;
  if (signal?.aborted) return Promise.reject(cancelled(server));
  return new Promise<unknown>((resolve, reject) => {
    // An AbortController costs microseconds on the hot path: made only for a leg that asks.
    let stop: AbortController | undefined;
    let stopped: string | undefined;
    const legOptions: LegOptions = {
      get signal() {
        if (!stop) {
          stop = new AbortController();
          if (stopped !== undefined) stop.abort(stopped);
        }
        return stop.signal;
      },
    };
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (): boolean => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      return true;
    };
    /** Ends the call early: the leg tells the upstream why, the caller gets `err`. */
    const end = (err: unknown, notice: string) => {
      if (!settle()) return;
      stopped = notice;
      legOptions.onstop?.(notice);
      stop?.abort(notice);
      reject(err);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => end(timedOut(server, timeoutMs), timeoutNotice(timeoutMs)),
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
    };
    const onAbort = () => end(cancelled(server), CANCELLED_BY_CLIENT);
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    const wanted = call.onprogress;
    if (wanted) {
      const reset = call.resetTimeoutOnProgress === true;
      legOptions.onprogress = (progress: Progress) => {
        if (done) return;
        if (reset) arm();
        wanted(progress);
      };
    }
    if (terms.input) legOptions.input = terms.input;
    leg.send(method, withMeta(params, call.meta), legOptions).then(
      (result) => {
        if (!settle()) return;
        const checked = terms.check?.(result) ??
          (typeof result === "object" && result !== null
            ? { ok: true as const, value: result }
            : { ok: false as const, problem: `expected an object, got ${JSON.stringify(result)}` });
        if (checked.ok) resolve(checked.value);
        else reject(malformed(server, method, checked.problem));
      },
      (err) => {
        if (!settle()) return;
        // A leg names every failure; anything else is a bug in it, told as what it is.
        reject(
          reasonOf(err) ? err : unavailable(server, `could not be reached (${messageOf(err)})`),
        );
      },
    );
  });
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
