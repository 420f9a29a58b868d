/**
 * The transport a session's SDK server is connected to: the SDK's streamable HTTP transport (or
 * our legacy SSE one) behind one decorator that does the HTTP layer's per-message work in one
 * place, instead of patching `send` and `onmessage` on the SDK's object:
 * - counts requests in and answers out, so a session with work in flight never idles out;
 * - answers a request the client cancels (the SDK sends nothing for it, so the POST stream
 *   carrying it would stay open until the client hung up; the spec has the sender of a
 *   cancellation ignore a later response, and the transport refuses an extra send);
 * - hands a server message related to a fast-path call (a sampling, elicitation or roots request
 *   an upstream sends during it) to that call's answer stream, because the SDK transport knows
 *   no stream for a request it never saw;
 * - hands a request or notification related to no request to the session's own GET stream
 *   (`./get-stream.ts`), when the session writes that stream itself.
 */
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { Activity } from "./activity.ts";

/** Routes a server message to the fast-path call it belongs to; false when there is none. */
export type RelatedRoute = (id: string | number, message: JSONRPCMessage) => boolean;

/** Sends a server message related to no request on the session's GET stream. */
export type StandaloneRoute = (message: JSONRPCMessage) => Promise<void>;

/** JSON-RPC code for a request the client cancelled (as LSP uses it; MCP defines none). */
const REQUEST_CANCELLED = -32800;

/** See the module comment. */
export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** After an answer was sent and none is left pending (a lean session may let its server go). */
  onanswered?: () => void;
  readonly #inner: Transport;
  readonly #activity: Activity;
  readonly #route: RelatedRoute | undefined;
  readonly #standalone: StandaloneRoute | undefined;

  constructor(
    inner: Transport,
    activity: Activity,
    route?: RelatedRoute,
    standalone?: StandaloneRoute,
  ) {
    this.#inner = inner;
    this.#activity = activity;
    this.#route = route;
    this.#standalone = standalone;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.#received(message, extra);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const related = options?.relatedRequestId;
    if (related === undefined) {
      if (this.#standalone && "method" in message) return this.#standalone(message);
    } else if (this.#route?.(related, message)) return Promise.resolve();
    if (("result" in message || "error" in message) && message.id !== undefined) {
      const a = this.#activity;
      a.pending.delete(message.id);
      a.lastSeen = Date.now();
      const answered = this.onanswered;
      if (answered && a.pending.size === 0) {
        return this.#inner.send(message, options).finally(answered);
      }
    }
    return this.#inner.send(message, options);
  }

  #received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const a = this.#activity;
    a.lastSeen = Date.now();
    if ("method" in message && "id" in message) a.pending.add(message.id);
    this.onmessage?.(message, extra);
    if (!("method" in message) || "id" in message) return;
    if (message.method !== "notifications/cancelled") return;
    const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id !== "string" && typeof id !== "number") return;
    void this.send({
      jsonrpc: "2.0",
      id,
      error: { code: REQUEST_CANCELLED, message: "Request cancelled" },
    }).catch(() => {});
  }
}
