/**
 * The lean leg to a stdio upstream: each request is written straight to the child and its
 * answer (and its progress) taken off the line before the SDK client sees it, skipping the
 * SDK's per-message work (schema checks of every message, handler maps) on the hot path.
 * Server-to-client requests and other notifications still reach the SDK client. Ids and
 * progress tokens are strings (`gw-1`, …), apart from the SDK's numeric ids.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../shared/errors.ts";
import { rawResultWithBytes, withRawJson } from "../shared/raw-json.ts";
import type { CallLeg, LegOptions, Progress } from "./caller.ts";
import { closed, notConnected, unavailable, UpstreamRpcError } from "./call-errors.ts";

/** Messages a caller takes off a stdio line before the SDK client sees them. */
export interface LineTap {
  /**
   * True when the message was this tap's (it is then not passed on). `line` is the text it was
   * parsed from: a result keeps it (`rawJsonOf`), so the HTTP fast path can send it on as is;
   * `bytes`, when given, the UTF-8 `line` was decoded from (a long line: its result keeps them
   * too, `rawBytesOf`).
   */
  message(msg: Record<string, unknown>, line?: string, bytes?: Uint8Array): boolean;
  /** The connection ended. */
  closed(): void;
}

const PREFIX = "gw-";

interface RpcError {
  code?: number;
  message?: string;
  data?: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The lean requests of one stdio connection. */
export class LeanLeg implements CallLeg, LineTap {
  readonly kind = "lean";
  #pending = new Map<string, LegOptions>();
  #next = 0;
  #ended = false;
  readonly #server: string;
  /** Writes a message: a promise only when it may fail or must wait (see `StdioTransport.write`). */
  readonly #write: (message: JSONRPCMessage) => Promise<void> | undefined;

  constructor(server: string, write: (message: JSONRPCMessage) => Promise<void> | undefined) {
    this.#server = server;
    this.#write = write;
  }

  send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: LegOptions,
  ): void {
    if (this.#ended) return options.failed(notConnected(this.#server));
    const id = `${PREFIX}${++this.#next}`;
    // The options are the request in flight: settled through, and stopped by their ticket.
    options.ticket = id;
    this.#pending.set(id, options);
    const sent = options.onprogress
      ? { ...params, _meta: { ...params?._meta as object, progressToken: id } }
      : params;
    const writing = this.#write({ jsonrpc: "2.0", id, method, params: sent } as JSONRPCMessage);
    if (writing) this.#watch(writing, id, options);
  }

  /**
   * A write that may yet fail: a dead pipe (EPIPE, a closed stdin) means the connection is gone.
   * A function of its own, so a write that is done at once makes no closure (nor its scope).
   */
  #watch(writing: Promise<void>, id: string, options: LegOptions): void {
    writing.catch((err) => {
      if (!this.#pending.delete(id)) return;
      options.failed(unavailable(this.#server, `could not be reached (${messageOf(err)})`));
    });
  }

  stop(options: LegOptions, notice: string): void {
    const id = options.ticket;
    if (id === undefined || !this.#pending.delete(id)) return;
    this.#notify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason: notice },
    });
  }

  message(msg: Record<string, unknown>, line?: string, bytes?: Uint8Array): boolean {
    if (msg.method === "notifications/progress") return this.#progress(msg.params);
    const id = msg.id;
    if (typeof id !== "string" || !id.startsWith(PREFIX) || "method" in msg) return false;
    const p = this.#pending.get(id);
    if (!p) return true; // a late answer to a call that timed out or was cancelled
    // What the SDK client would not take as an answer it drops, and so does this leg: the
    // two callers agree on every upstream behaviour (test/upstream/caller-parity.test.ts).
    const { result, error } = msg as { result?: unknown; error?: RpcError };
    if (isObject(result)) {
      this.#pending.delete(id);
      p.answered(line === undefined ? result : marked(result, msg, line, bytes));
    } else if (
      isObject(error) && Number.isInteger(error.code) && typeof error.message === "string"
    ) {
      this.#pending.delete(id);
      p.failed(new UpstreamRpcError(this.#server, error as Required<RpcError>));
    }
    return true;
  }

  #progress(params: unknown): boolean {
    const { progressToken, ...progress } = (params ?? {}) as Record<string, unknown>;
    if (typeof progressToken !== "string" || !progressToken.startsWith(PREFIX)) return false;
    const report = this.#pending.get(progressToken)?.onprogress;
    if (report && typeof progress.progress === "number") report(progress as Progress);
    return true; // ours, even when late: the SDK client would only complain of an unknown token
  }

  closed(): void {
    this.#ended = true;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.failed(closed(this.#server));
  }

  #notify(message: JSONRPCMessage): void {
    this.#write(message)?.catch(() => {});
  }
}

/** `result` marked with the text (and bytes, when given) it arrived as, where they are sure. */
function marked(
  result: Record<string, unknown>,
  msg: Record<string, unknown>,
  line: string,
  bytes: Uint8Array | undefined,
): Record<string, unknown> {
  const raw = rawResultWithBytes(line, msg, bytes);
  return raw === undefined ? result : withRawJson(result, raw.text, raw.bytes);
}
