/**
 * The SDK client's leg: requests to an HTTP or SSE upstream go through `Client.request`, which
 * correlates answers, relays progress and sends `notifications/cancelled` when told to stop.
 * The SDK's own timeout is kept out of the way (the frame owns the clock), results pass
 * through unchecked (the frame checks them), and each SDK failure is named here, once.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { messageOf } from "../shared/errors.ts";
import type { CallLeg, LegOptions, Progress } from "./caller.ts";
import { closed, notConnected, unavailable, UpstreamRpcError } from "./call-errors.ts";

/** Any result: the frame checks its shape, so the SDK need not parse it a second time. */
export const ANY_RESULT = z.custom<unknown>(() => true);

/** The frame's timer always fires first; the SDK's must never (the longest a timer takes). */
export const SDK_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * `Client.request` by any method name. The SDK types the request of each method it knows; the
 * gateway sends any method a client asked for, and the frame checks the result.
 */
interface AnyMethod {
  request(
    request: { method: string; params?: Record<string, unknown> | undefined },
    schema: typeof ANY_RESULT,
    options: RequestOptions,
  ): Promise<unknown>;
}

/** Requests of one connected SDK client. */
export class SdkLeg implements CallLeg {
  readonly kind = "sdk";
  readonly #client: Client;
  readonly #anyMethod: AnyMethod;
  readonly #server: string;

  constructor(server: string, client: Client) {
    this.#server = server;
    this.#client = client;
    this.#anyMethod = client;
  }

  send(method: string, params: Record<string, unknown> | undefined, options: LegOptions): void {
    // Closed, or never connected.
    if (!this.#client.transport) return options.failed(notConnected(this.#server));
    const onprogress = options.onprogress;
    this.#anyMethod.request({ method, params }, ANY_RESULT, {
      // The SDK sends String(signal.reason) upstream in notifications/cancelled.
      signal: options.signal,
      timeout: SDK_TIMEOUT_MS,
      ...(onprogress ? { onprogress: (p) => onprogress(p as Progress) } : {}),
    }).then((result) => options.answered(result), (err) => options.failed(this.#named(err)));
  }

  #named(err: unknown): unknown {
    if (err instanceof McpError) {
      if (err.code === ErrorCode.ConnectionClosed) return closed(this.#server);
      return new UpstreamRpcError(this.#server, {
        code: err.code,
        // McpError puts `MCP error <code>: ` before the server's own words.
        message: err.message.replace(/^MCP error -?\d+: /, ""),
        ...(err.data === undefined ? {} : { data: err.data }),
      });
    }
    return unavailable(this.#server, `could not be reached (${messageOf(err)})`, {
      ...(neverDelivered(err) ? { delivered: false } : {}),
    });
  }
}

const REFUSED = new Set<unknown>(["ECONNREFUSED", "ConnectionRefused"]);

/**
 * True when a failed HTTP request surely never reached a live session (safe to resend): the
 * session is unknown (404) or the connection was refused. Bun and Node name the refusal by
 * code; Deno's fetch names none, so its wording is the only sign there.
 */
export function neverDelivered(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  if (e?.code === 404 || REFUSED.has(e?.code) || REFUSED.has(e?.cause?.code)) return true;
  return /Connection refused/.test(String(e?.cause?.message ?? ""));
}
