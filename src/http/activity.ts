/**
 * What keeps a session from being idle: requests it is handling and, for streamable HTTP, GET
 * streams it holds open (a legacy SSE session's one event stream does not count: it is open for
 * the session's whole life). Requests are counted at the transport (a request arrives through `onmessage`,
 * its answer leaves through `send`), so answer streams are never wrapped on the hot path.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

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

/** JSON-RPC code for a request the client cancelled (as LSP uses it; MCP defines none). */
const REQUEST_CANCELLED = -32800;

/**
 * Counts requests in and answers out on `transport` (call after `server.connect`, which sets
 * `onmessage`). Also answers a request the client cancels: the SDK sends nothing for it, so the
 * POST stream carrying it would stay open, with keep-alives, until the client hung up. The spec
 * has the sender of a cancellation ignore any later response; if the request was already
 * answered, the transport refuses the extra send, which is ignored.
 */
export function watchTransport(
  transport: Transport,
  a: Activity,
): void {
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    a.lastSeen = Date.now();
    if ("method" in message && "id" in message) a.pending.add(message.id);
    onmessage?.(message, extra);
    if (!("method" in message) || "id" in message) return;
    if (message.method !== "notifications/cancelled") return;
    const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id !== "string" && typeof id !== "number") return;
    void transport.send({
      jsonrpc: "2.0",
      id,
      error: { code: REQUEST_CANCELLED, message: "Request cancelled" },
    }).catch(() => {});
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (("result" in message || "error" in message) && message.id !== undefined) {
      a.pending.delete(message.id);
      a.lastSeen = Date.now();
    }
    return send(message, options);
  };
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
