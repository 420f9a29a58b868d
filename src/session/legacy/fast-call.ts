/**
 * The `tools/call` fast path for streamable HTTP sessions. The SDK transport answers every POST
 * with an SSE stream and runs each message through its whole machinery; most calls need neither.
 * Here a call is routed straight to the gateway and answered with plain JSON when its result
 * comes first. When a progress notification or a server-to-client request (sampling,
 * elicitation, roots) for that call comes first, the answer becomes an SSE stream carrying
 * those messages and then the result — so nothing the slow path delivers is lost.
 */
import {
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { type Caller, enterCall, type Gateway } from "../../gateway/mod.ts";
import type { LazyCancellation } from "../../shared/call-context.ts";
import type { SessionLink } from "../../gateway/passthrough/link.ts";
import { toJsonRpcError } from "../../shared/errors.ts";
import { callerOf, callerServes, type RequestIdentity } from "../door.ts";
import type { Activity } from "./activity.ts";
import { errorAnswer, resultAnswer, resultBody } from "../answers.ts";

type RequestId = string | number;

/** A `tools/call` request the fast path can take. */
export interface FastCallRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: "tools/call";
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
}

/** Calls of one session in flight on the fast path, by request id. */
export class FastCalls {
  #calls = new Map<RequestId, FastCall>();
  /** The answer headers of this session, made once (a `Response` copies them). */
  #headers: { sessionId: string; json: Headers; sse: Headers } | undefined;
  /** The caller of this session's last request (see {@link FastCalls.callerOf}). */
  #caller: Caller | undefined;

  /**
   * The caller of a request of `who` on `session`: the one made for the session's last request
   * while `who` presents the same token, profile and globs (every request of a session does,
   * unless an OAuth client refreshes its token), else a new one, kept for the next request.
   */
  callerOf(
    gateway: Gateway,
    who: RequestIdentity,
    session: { readonly id: string },
  ): Caller {
    const last = this.#caller;
    if (last !== undefined && callerServes(last, who)) return last;
    return this.#caller = callerOf(gateway, who, () => session.id);
  }

  /**
   * Writes a server message related to request `id` into that fast call's answer; false when
   * `id` is not a fast call (the session's transport sends it). See `./session-transport.ts`.
   */
  readonly route = (id: RequestId, message: JSONRPCMessage): boolean => {
    const call = this.#calls.get(id);
    call?.write(JSON.stringify(message));
    return call !== undefined;
  };

  /** Aborts a fast call the client cancelled; false when the id is not a fast call. */
  cancel(id: unknown): boolean {
    const call = (typeof id === "string" || typeof id === "number")
      ? this.#calls.get(id)
      : undefined;
    call?.cancel();
    return call !== undefined;
  }

  /** Aborts every call (session closed). */
  abortAll(): void {
    for (const c of this.#calls.values()) c.cancel();
  }

  /** Runs one call; resolves with JSON, or with an SSE stream once a related message is sent. */
  run(
    msg: FastCallRequest,
    ctx: {
      gateway: Gateway;
      caller: Caller;
      link: SessionLink | undefined;
      sessionId: string;
      activity: Activity;
      /** The request the call came in: its going away cancels the call. */
      request: Request;
    },
  ): Promise<Response> {
    const { id } = msg;
    const call = new FastCall(id, ctx.activity, ctx.request, this.#headersOf(ctx.sessionId));
    ctx.activity.pending.add(id);
    this.#calls.set(id, call);
    const meta = msg.params._meta;
    const options = enterCall(ctx.caller, {
      meta,
      cancellation: call,
      client: ctx.link,
      requestId: id,
      // Laid out as the SDK's session server writes it (see answers.ts); only a call that
      // asked for progress gets a sink.
      progress: meta?.progressToken === undefined
        ? undefined
        : (params) =>
          call.write(JSON.stringify({ method: "notifications/progress", params, jsonrpc: "2.0" })),
    });
    const answer = new Promise<Response>((resolve) => (call.resolve = resolve));
    ctx.gateway.callTool(msg.params.name, msg.params.arguments, options).then(
      (result) => this.#finish(call, result, undefined),
      (err) => this.#finish(call, undefined, err),
    );
    return answer;
  }

  #finish(call: FastCall, result: unknown, err: unknown): void {
    // A cancelled call is answered as cancelled, whatever the upstream made of the abort.
    const answer = call.cancelled
      ? errorAnswer(call.id, CANCELLED)
      : err === undefined
      ? call.streaming ? resultAnswer(call.id, result) : resultBody(call.id, result)
      : errorAnswer(call.id, toJsonRpcError(err));
    this.#calls.delete(call.id);
    call.end(answer);
  }

  #headersOf(sessionId: string): { json: Headers; sse: Headers } {
    if (this.#headers?.sessionId !== sessionId) {
      const own = { "mcp-session-id": sessionId };
      this.#headers = {
        sessionId,
        json: new Headers({ ...own, ...JSON_HEADERS }),
        sse: new Headers({ ...own, ...SSE_HEADERS }),
      };
    }
    return this.#headers;
  }
}

/**
 * One fast call in flight: its answer and the call's cancellation (by the client's
 * `notifications/cancelled`, its going away, or the session's close). The upstream frame
 * listens to this object itself; an `AbortController` is made only for a layer that reads the
 * call's `signal`, and the request's own signal is read and listened to (its client going away)
 * only once a layer watches the call: before, nothing would be told of it. A call to one of the
 * gateway's own tools, that nothing watches, makes neither.
 */
class FastCall implements LazyCancellation {
  resolve!: (response: Response) => void;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #aborted = false;
  #controller: AbortController | undefined;
  /** Told once, at the cancel: usually just the upstream frame of the call. */
  #listeners: { handleEvent(): void }[] | undefined;
  /** The request's signal, once listened to (see `#watch`). */
  #watched: AbortSignal | undefined;

  constructor(
    readonly id: RequestId,
    readonly activity: Activity,
    readonly request: Request,
    readonly headers: { json: Headers; sse: Headers },
  ) {}

  /** True once the answer is an SSE stream (a message went before the result). */
  get streaming(): boolean {
    return this.#stream !== undefined;
  }

  /** True once the call was cancelled, without watching the request for it. */
  get cancelled(): boolean {
    return this.#aborted;
  }

  get aborted(): boolean {
    this.#watch();
    return this.#aborted;
  }

  get signal(): AbortSignal {
    this.#watch();
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** As on an `AbortSignal`: a listener added twice is told once, none after the cancel. */
  addEventListener(_type: "abort", listener: { handleEvent(): void }): void {
    this.#watch();
    if (this.#aborted) return;
    const listeners = this.#listeners ??= [];
    if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: { handleEvent(): void }): void {
    const listeners = this.#listeners;
    const at = listeners ? listeners.indexOf(listener) : -1;
    if (at >= 0) listeners!.splice(at, 1);
  }

  /** Cancels the call, once: its signal (if made) aborts and each listener is told. */
  cancel(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) { for (const listener of listeners) listener.handleEvent(); }
  }

  /**
   * Listens to the request's signal from the first layer that watches the call on. No `once`
   * (it costs as much as the listener): the call removes it as it ends, and a second abort is
   * a no-op.
   */
  #watch(): void {
    if (this.#watched || this.#aborted) return;
    const signal = this.#watched = this.request.signal;
    if (signal.aborted) this.cancel();
    else signal.addEventListener("abort", this);
  }

  /** The request's signal aborted: the client went away. */
  handleEvent(): void {
    this.cancel();
  }

  /** Writes one message into the answer, which becomes an SSE stream at the first one. */
  write(text: string): void {
    if (!this.#stream) {
      const body = new ReadableStream<Uint8Array>({
        start: (c) => void (this.#stream = c),
        // The client dropped the stream: the call it was waiting for is cancelled.
        cancel: () => this.cancel(),
      });
      this.resolve(new Response(body, { headers: this.headers.sse }));
    }
    try {
      this.#stream!.enqueue(ENCODER.encode(`event: message\ndata: ${text}\n\n`));
    } catch { /* the client went away; the abort listener ends the call */ }
  }

  /**
   * Sends the final answer: the JSON body, or the last event of the stream (always text, see
   * {@link streaming}).
   */
  end(answer: string | ReadableStream<Uint8Array>): void {
    this.#watched?.removeEventListener("abort", this);
    this.activity.pending.delete(this.id);
    this.activity.lastSeen = Date.now();
    if (this.#stream) {
      if (typeof answer === "string") this.write(answer);
      try {
        this.#stream.close();
      } catch { /* already closed by the client */ }
    } else this.resolve(new Response(answer, { headers: this.headers.json }));
  }
}

const CANCELLED = { code: -32800, message: "Request cancelled" } as const;
const ENCODER = new TextEncoder();
const JSON_HEADERS = { "content-type": "application/json" };
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/**
 * True when a POST can take the fast path: one `tools/call` request with well-formed params,
 * a client that accepts both answer forms, and a supported protocol version header. Anything
 * else goes to the SDK transport, which answers the errors.
 */
export function isFastCall(req: Request, msg: unknown): msg is FastCallRequest {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return false;
  const m = msg as Record<string, unknown>;
  if (m.method !== "tools/call" || m.jsonrpc !== "2.0") return false;
  if (typeof m.id !== "string" && (typeof m.id !== "number" || !Number.isSafeInteger(m.id))) {
    return false;
  }
  const p = m.params as Record<string, unknown> | undefined;
  if (!p || typeof p !== "object" || typeof p.name !== "string") return false;
  // Task-augmented calls create a task upstream: the session server's task path serves them.
  if (p.task !== undefined) return false;
  if (
    p.arguments !== undefined &&
    (typeof p.arguments !== "object" || p.arguments === null || Array.isArray(p.arguments))
  ) {
    return false;
  }
  if (p._meta !== undefined && (typeof p._meta !== "object" || p._meta === null)) return false;
  const accept = req.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
  const version = req.headers.get("mcp-protocol-version");
  return version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** The request id a `notifications/cancelled` message names, if `msg` is one. */
export function cancelledId(msg: unknown): unknown {
  const m = msg as { method?: unknown; params?: { requestId?: unknown } } | null;
  return m && typeof m === "object" && m.method === "notifications/cancelled"
    ? m.params?.requestId
    : undefined;
}
