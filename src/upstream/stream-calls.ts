/**
 * Which call's stream carried each request a 2025 streamable HTTP server sends. Such a server
 * asks what a call needs (sampling, elicitation, roots) on the event stream that answers that
 * call's own POST; the SDK 1.x client transport hands every message to one `onmessage`, the
 * stream forgotten. Without that relation a connection shared by several sessions (a shared
 * server's, a dual-era server's 2025 side) could not tell whose a request is once calls of two
 * sessions were in flight on it. So the transport's `fetch` is wrapped: a POST made while a
 * call is being sent (marked with {@link sendingFor}) is that call's, and the requests read off
 * its event stream are recorded as that call's before the SDK reads them — then
 * {@link StreamCalls.take} names the call exactly. Nothing is kept per session: one small table
 * per connection, its entries taken as the requests are answered.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createParser } from "eventsource-parser";
import type { CallContext } from "../shared/call-context.ts";

/**
 * The call being sent, while it is. Claimed by its own POST: the first one on the session that
 * carries its method. What else runs in its async context (a reconnect's handshake and catalog
 * read, its answers to the server, a re-read a notification on its stream causes) is not it.
 */
interface Sending {
  readonly call: CallContext;
  /** How the POST body of its request begins (the SDK writes `method` first). */
  readonly opening: string;
  claimed: boolean;
}

const sending = new AsyncLocalStorage<Sending>();

/** Runs `send` (`call`'s request `method`) so that the POST it makes is known as `call`'s. */
export function sendingFor<T>(call: CallContext, method: string, send: () => T): T {
  return sending.run(
    { call, opening: `{"method":${JSON.stringify(method)}`, claimed: false },
    send,
  );
}

/** What {@link StreamCalls.take} says of a request id seen on the streams of two calls. */
export const AMBIGUOUS = "ambiguous";

/** Entries kept at most: a request never answered (the SDK dropped it) ages out. */
const MAX_ENTRIES = 1024;
/** An event larger than this is not read for a request (the stream itself passes unchanged). */
const MAX_EVENT = 8 * 1024 * 1024;

/** The calls whose streams carried the requests of one 2025 streamable HTTP connection. */
export class StreamCalls {
  /** Server request id → the call whose POST stream carried it. */
  readonly #byRequest = new Map<unknown, CallContext | typeof AMBIGUOUS>();

  /** `inner` with each call's own POST stream read for the requests it carries. */
  fetch(inner: FetchLike): FetchLike {
    return async (url, init) => {
      const marked = sending.getStore();
      const mine = !!marked && !marked.claimed && init?.method === "POST" &&
        typeof init.body === "string" && init.body.startsWith(marked.opening) &&
        new Headers(init.headers).has("mcp-session-id");
      const response = await inner(url, init);
      // A refused POST (a 401 the SDK answers by sending again) is not the call's stream yet.
      if (!mine || !response.ok || marked.claimed) return response;
      marked.claimed = true;
      const type = response.headers.get("content-type") ?? "";
      if (!response.body || !type.toLowerCase().startsWith("text/event-stream")) return response;
      return new Response(response.body.pipeThrough(this.#reader(marked.call)), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /**
   * The call whose stream carried server request `id` (forgotten now: an id is answered once);
   * {@link AMBIGUOUS} when two calls' streams carried it; `undefined` when none did (it came on
   * the standalone GET stream, or before this connection knew).
   */
  take(id: unknown): CallContext | typeof AMBIGUOUS | undefined {
    const call = this.#byRequest.get(id);
    this.#byRequest.delete(id);
    return call;
  }

  /** A pass-through stream that records the requests in `call`'s events before they go on. */
  #reader(call: CallContext): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder();
    let reading = true;
    const parser = createParser({
      maxBufferSize: MAX_EVENT,
      onEvent: (event) => {
        if (event.event && event.event !== "message") return;
        if (!event.data.includes('"method"')) return; // a result: no need to parse it
        this.#record(event.data, call);
      },
      // Too large an event stops the reading (the parser throws from then on), not the stream.
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") reading = false;
      },
    });
    return new TransformStream({
      transform: (chunk, out) => {
        if (reading) {
          try {
            parser.feed(decoder.decode(chunk, { stream: true }));
          } catch {
            reading = false;
          }
        }
        out.enqueue(chunk);
      },
    });
  }

  #record(data: string, call: CallContext): void {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return; // the SDK reports what it cannot read
    }
    const m = message as { method?: unknown; id?: unknown } | null;
    if (
      !m || typeof m.method !== "string" || (typeof m.id !== "string" && typeof m.id !== "number")
    ) {
      return;
    }
    const before = this.#byRequest.get(m.id);
    this.#byRequest.delete(m.id);
    this.#byRequest.set(m.id, before && before !== call ? AMBIGUOUS : call);
    if (this.#byRequest.size > MAX_ENTRIES) {
      this.#byRequest.delete(this.#byRequest.keys().next().value);
    }
  }
}
