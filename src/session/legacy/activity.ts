/**
 * What keeps a session from being idle: requests it is handling and, for streamable HTTP, GET
 * streams it holds open (a legacy SSE session's one event stream does not count: it is open for
 * the session's whole life). Requests are counted at the transport (`./session-transport.ts`: a request arrives
 * through `onmessage`, its answer leaves through `send`), so answer streams are never wrapped on
 * the hot path.
 */
import { guardStream, type StreamGuardOptions } from "../../shared/stream-guard.ts";

type RequestId = string | number;

/** Activity of one session. */
export interface Activity {
  /** Ids of requests received and not yet answered. */
  readonly pending: Set<RequestId>;
  /** GET streams (standalone or resumed) still open. */
  streams: number;
  /** Last time a request arrived or an answer or stream ended. */
  lastSeen: number;
  /** When the session opened (epoch ms). */
  readonly openedAt: number;
}

/** Fresh activity, seen now. */
export function newActivity(): Activity {
  const now = Date.now();
  return { pending: new Set(), streams: 0, lastSeen: now, openedAt: now };
}

/** True when nothing runs on the session and it was last seen before `cutoff`. */
export function isIdle(a: Activity, cutoff: number): boolean {
  return a.pending.size === 0 && a.streams === 0 && a.lastSeen < cutoff;
}

/**
 * Counts a long-lived response stream as activity until it ends, errors or is cancelled (then
 * `ended` is called, also at once for a response without a body); the stream is guarded as
 * `guard` says (bounded for a slow reader, closed when its token expires).
 */
export function trackStream(
  a: Activity,
  response: Response,
  guard: Omit<StreamGuardOptions, "onEnd">,
  ended?: () => void,
): Response {
  if (!response.body) {
    ended?.();
    return response;
  }
  a.streams++;
  return guardStream(response, {
    ...guard,
    onEnd: () => {
      a.streams--;
      a.lastSeen = Date.now();
      ended?.();
    },
  });
}
