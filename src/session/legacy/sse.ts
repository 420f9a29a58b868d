/**
 * Legacy HTTP+SSE transport (protocol 2024-11-05) on Web streams: `GET /sse` opens the event
 * stream and announces `/message?sessionId=…`; `POST /message` carries client messages.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { batchRefusal } from "./batch.ts";
import { readJson } from "../../shared/lazy-json.ts";
import { resultAnswer, resultParts } from "../answers.ts";
import { RawResults } from "./raw-results.ts";

const KEEPALIVE_MS = 15_000;
const encoder = new TextEncoder();
/** What surrounds a message's JSON in its event. */
const EVENT_HEAD = encoder.encode("event: message\ndata: ");
const EVENT_TAIL = encoder.encode("\n\n");

/** One legacy SSE session. */
export class SseSessionTransport implements Transport {
  readonly sessionId = crypto.randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #keepalive: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  readonly #endpoint: string;
  /**
   * Tool results that arrived as raw JSON, held by the session's server until their answers are
   * sent (`./raw-results.ts`): the server is created with these.
   */
  readonly rawResults = new RawResults();

  constructor(messagePath: string) {
    this.#endpoint = `${messagePath}?sessionId=${this.sessionId}`;
  }

  /** The streaming response for `GET /sse`. */
  response(): Response {
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        controller.enqueue(encoder.encode(`event: endpoint\ndata: ${this.#endpoint}\n\n`));
        this.#keepalive = setInterval(() => this.#write(": keepalive\n\n"), KEEPALIVE_MS);
      },
      cancel: () => void this.close(),
    });
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
      },
    });
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Handles `POST /message` for this session; batches over `maxBatch` are refused whole. Every
   * message is handed on with `authInfo`: who presented this POST.
   */
  async handlePost(req: Request, maxBatch = Infinity, authInfo?: AuthInfo): Promise<Response> {
    let parsed: unknown;
    try {
      parsed = await readJson(req);
    } catch {
      return jsonError(400, -32700, "Parse error: the body is not JSON");
    }
    const refused = batchRefusal(parsed, maxBatch);
    if (refused) return refused;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    for (const m of messages) {
      const r = JSONRPCMessageSchema.safeParse(m);
      if (!r.success) return jsonError(400, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
    }
    for (const m of messages) this.onmessage?.(m as JSONRPCMessage, authInfo ? { authInfo } : {});
    return new Response("Accepted", { status: 202 });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("SSE stream closed"));
    const original = this.rawResults.take(message);
    if (original === undefined) {
      this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    } else this.#writeResult((message as { id: string | number }).id, original);
    return Promise.resolve();
  }

  /**
   * The answer to request `id` carrying `result`, written from the JSON it arrived as: from its
   * bytes where they were kept (three parts, the result's a view of them), else from its text.
   */
  #writeResult(id: string | number, result: object): void {
    const parts = resultParts(id, result);
    if (parts === undefined) this.#write(`event: message\ndata: ${resultAnswer(id, result)}\n\n`);
    else this.#enqueue([EVENT_HEAD, ...parts, EVENT_TAIL]);
  }

  #write(text: string): void {
    this.#enqueue([encoder.encode(text)]);
  }

  /** Puts `chunks` on the event stream; a stream the client dropped closes the session. */
  #enqueue(chunks: Uint8Array[]): void {
    try {
      for (const chunk of chunks) this.#controller?.enqueue(chunk);
    } catch {
      void this.close();
    }
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    clearInterval(this.#keepalive);
    this.rawResults.clear();
    try {
      this.#controller?.close();
    } catch { /* already closed by the client */ }
    this.onclose?.();
    return Promise.resolve();
  }
}

/** A JSON-RPC error response with no id, as transports answer malformed requests. */
export function jsonError(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Response {
  const error = { code, message };
  return Response.json({ jsonrpc: "2.0", id: null, error }, { status, headers });
}
