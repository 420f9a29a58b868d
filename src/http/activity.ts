/**
 * What keeps a session from being idle: requests it is handling and, for streamable HTTP, GET
 * streams it holds open (a legacy SSE session's one event stream does not count: it is open for
 * the session's whole life). Requests are counted at the transport (`./session-transport.ts`: a request arrives
 * through `onmessage`, its answer leaves through `send`), so answer streams are never wrapped on
 * the hot path.
 */

type RequestId = string | number;

/** Activity of one session. */
export interface Activity {
  /** Ids of requests received and not yet answered. */
  readonly pending: Set<RequestId>;
  /** GET streams (standalone or resumed) still open. */
  streams: number;
  /** Last time a request arrived or an answer or stream ended. */
  lastSeen: number;
}

/** Fresh activity, seen now. */
export function newActivity(): Activity {
  return { pending: new Set(), streams: 0, lastSeen: Date.now() };
}

/** True when nothing runs on the session and it was last seen before `cutoff`. */
export function isIdle(a: Activity, cutoff: number): boolean {
  return a.pending.size === 0 && a.streams === 0 && a.lastSeen < cutoff;
}

/** Counts a long-lived response stream as activity until it ends, errors or is cancelled. */
export function trackStream(a: Activity, response: Response): Response {
  if (!response.body) return response;
  a.streams++;
  let open = true;
  const done = () => {
    if (!open) return;
    open = false;
    a.streams--;
    a.lastSeen = Date.now();
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
