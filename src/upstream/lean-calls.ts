/**
 * The lean `tools/call` path to a stdio upstream: the request is written straight to the child
 * and its answer taken off the line before the SDK client sees it. This skips the SDK's
 * per-message work (schema checks of every message, handler maps) on the hot path. Calls that
 * want progress keep the SDK path; server-to-client requests and notifications still reach the
 * SDK client as before. Ids are strings (`gw-1`, …), apart from the SDK's numeric ids.
 */
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, messageOf } from "../shared/errors.ts";
import { rawResultOf, withRawJson } from "../shared/raw-json.ts";

interface Pending {
  resolve(result: CallToolResult): void;
  reject(err: unknown): void;
  timer: ReturnType<typeof setTimeout>;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** Options of one lean call. */
export interface LeanCallOptions {
  server: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** An upstream answered with a JSON-RPC error: its code and data pass through to the client. */
export class UpstreamRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(error: { code: number; message: string; data?: unknown }) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

/** Lean calls of one stdio connection. */
export class LeanCalls {
  #pending = new Map<string, Pending>();
  #next = 0;
  readonly #send: (message: JSONRPCMessage) => Promise<void>;

  constructor(send: (message: JSONRPCMessage) => Promise<void>) {
    this.#send = send;
  }

  /** Sends `tools/call`; resolves with the result, rejects with a clear `GatewayError`. */
  call(params: Record<string, unknown>, opts: LeanCallOptions): Promise<CallToolResult> {
    if (opts.signal?.aborted) return Promise.reject(cancelled(opts.server));
    const id = `gw-${++this.#next}`;
    return new Promise<CallToolResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settle(id);
        this.#cancel(id, `request timed out after ${opts.timeoutMs}ms`);
        reject(
          new GatewayError(
            "UPSTREAM_TIMEOUT",
            `server "${opts.server}" did not answer within ${opts.timeoutMs}ms`,
            {
              data: { server: opts.server },
            },
          ),
        );
      }, opts.timeoutMs);
      const onAbort = opts.signal
        ? () => {
          this.#settle(id);
          this.#cancel(id, "cancelled by the client");
          reject(cancelled(opts.server));
        }
        : undefined;
      if (onAbort) opts.signal!.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, { resolve, reject, timer, signal: opts.signal, onAbort });
      this.#send({ jsonrpc: "2.0", id, method: "tools/call", params } as JSONRPCMessage).catch(
        (err) => {
          // A write to a dead pipe (EPIPE, a closed stdin): the connection is gone, whatever
          // the runtime's wording.
          if (this.#settle(id)) {
            reject(unavailable(opts.server, `could not be written to (${messageOf(err)})`));
          }
        },
      );
    });
  }

  /**
   * Takes a message off the line when it answers a lean call; false for everything else. With
   * the `line` it was parsed from, a result keeps its JSON text (`rawJsonOf`), so the HTTP fast
   * path can send it on without serialising it again.
   */
  intercept(msg: { id?: unknown; result?: unknown; error?: unknown }, line?: string): boolean {
    if (typeof msg.id !== "string" || !msg.id.startsWith("gw-")) return false;
    const p = this.#settle(msg.id);
    if (!p) return true; // a late answer to a call that timed out or was cancelled
    if (msg.error && typeof msg.error === "object") {
      p.reject(
        new UpstreamRpcError(msg.error as { code: number; message: string; data?: unknown }),
      );
    } else {
      const result = msg.result as CallToolResult;
      const raw = line === undefined || typeof result !== "object" || result === null
        ? undefined
        : rawResultOf(line, msg as Record<string, unknown>);
      p.resolve(raw === undefined ? result : withRawJson(result, raw));
    }
    return true;
  }

  /** Fails every pending call at once (the connection closed). */
  failAll(server: string): void {
    for (const id of [...this.#pending.keys()]) {
      this.#settle(id)?.reject(unavailable(server, "closed the connection during the call"));
    }
  }

  #settle(id: string): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    clearTimeout(p.timer);
    if (p.onAbort) p.signal?.removeEventListener("abort", p.onAbort);
    return p;
  }

  #cancel(id: string, reason: string): void {
    this.#send(
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason },
      } as JSONRPCMessage,
    )
      .catch(() => {});
  }
}

function cancelled(server: string): GatewayError {
  return new GatewayError("UPSTREAM_ERROR", `the call to server "${server}" was cancelled`, {
    data: { server, cancelled: true },
  });
}

function unavailable(server: string, why: string): GatewayError {
  return new GatewayError("UPSTREAM_UNAVAILABLE", `server "${server}" ${why}`, {
    data: { server },
  });
}
