/**
 * One raw 2026-07-28 request, as the protocol tests send it by hand: the per-request `_meta`
 * envelope in the body and the routing headers (`Mcp-Method`, and `Mcp-Name` from the params'
 * `name` or `taskId`) beside it.
 */

/** The revision these tests speak. */
export const MODERN = "2026-07-28";

/** The `_meta` envelope every 2026-07-28 request carries, with the client's `caps`. */
export function envelope(caps: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": caps,
  };
}

/** What a raw request carries beyond its method and params. */
export interface RawModernOptions {
  /** The envelope's client capabilities (default: none). */
  caps?: Record<string, unknown>;
  /** `_meta` keys of the call's own, sent before the envelope keys. */
  meta?: Record<string, unknown>;
  /** Extra or overriding headers. */
  headers?: Record<string, string>;
  /** The JSON-RPC id (default 1). */
  id?: string | number;
  /** The endpoint path (default `/mcp`; a profile's is `/mcp/<profile>`). */
  path?: string;
  /** Aborts the request: the client going away. */
  signal?: AbortSignal;
}

/**
 * Sends one raw 2026-07-28 request to the gateway's `/mcp` (or `options.path`); the HTTP
 * response. An empty `token` sends no `Authorization` header (a gateway without auth).
 */
export function postModern(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  options: RawModernOptions = {},
): Promise<Response> {
  const name = params.name ?? params.taskId;
  return fetch(`${url}${options.path ?? "/mcp"}`, {
    method: "POST",
    ...(options.signal ? { signal: options.signal } : {}),
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: options.id ?? 1,
      method,
      params: {
        ...params,
        _meta: { ...options.meta, ...envelope(options.caps) },
      },
    }),
  });
}

/** The JSON-RPC answer of a response: its JSON body, or the stream's last message with an id. */
export async function answerOf(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const line = text.startsWith("{")
    ? text
    : text.split("\n").filter((l) => l.startsWith("data: ") && l.includes('"id"')).pop();
  return JSON.parse(line!.replace(/^data: /, "")) as Record<string, unknown>;
}
