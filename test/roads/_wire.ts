/**
 * The wire the road tests speak: raw 2025 session requests, SDK clients of a configured token,
 * and what a call answered read back as one {@link Outcome}.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import { textOf } from "../_helpers/gateway.ts";
import {
  authedHttpClient,
  authedSseClient,
  bearer,
  INITIALIZE,
  MCP_HEADERS,
  messagesOf,
} from "../security/_http.ts";

/**
 * The bearer `who` presents: the token of a configured name, or `who` itself when it is an
 * OAuth access token (a JWT: configured names have no dots).
 */
export const token = (name: string): string =>
  name.includes(".") ? name : `${name}-one-road-token-0123456789`;

/** What came back from one call: a result (`ok` unless `isError`) or the refusal's message. */
export interface Outcome {
  readonly ok: boolean;
  readonly message: string;
  /** The JSON-RPC messages of the answer, when the road reads them raw. */
  readonly messages?: readonly Record<string, unknown>[];
}

/** The arguments every road passes: `echo__slow` returns at once, `slow_compute` too. */
export const ARGS = { ms: 1, steps: 1, seconds: 0 };

/** Opens a 2025 streamable HTTP session of `who` on `path`; answers its id. */
export async function openOn(url: string, path: string, who: string): Promise<string> {
  const headers = { ...MCP_HEADERS, ...bearer(token(who)) };
  const res = await fetch(`${url}${path}`, { method: "POST", headers, body: INITIALIZE });
  await res.body?.cancel();
  const sid = res.headers.get("mcp-session-id");
  if (res.status !== 200 || !sid) throw new Error(`initialize on ${path} answered ${res.status}`);
  await fetch(`${url}${path}`, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": sid },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((r) => r.body?.cancel());
  return sid;
}

/** POSTs `body` on session `sid` as `who`; answers the HTTP status and the JSON-RPC messages. */
export async function postOn(
  url: string,
  path: string,
  who: string,
  sid: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; messages: Record<string, unknown>[] }> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...bearer(token(who)), "mcp-session-id": sid },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, messages: [] };
  return { status: res.status, messages: messagesOf(text) as Record<string, unknown>[] };
}

/** A `tools/call` JSON-RPC message. */
export const callMessage = (id: number, name: string, meta: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: ARGS, _meta: meta },
});

/** The outcome of the answer with id `id` among `messages`. */
export function outcomeOf(messages: readonly Record<string, unknown>[], id: unknown): Outcome {
  const answer = messages.find((m) => m.id === id);
  if (!answer) return { ok: false, message: `no answer ${id} in ${JSON.stringify(messages)}` };
  return resultOutcome(answer, messages);
}

function resultOutcome(
  answer: Record<string, unknown>,
  messages?: readonly Record<string, unknown>[],
): Outcome {
  const error = answer.error as { code: number; message: string } | undefined;
  if (error) return { ok: false, message: `${error.code}: ${error.message}`, messages };
  const result = answer.result as { isError?: boolean; task?: unknown; resultType?: string };
  return {
    ok: result.isError !== true,
    message: textOf(result) || JSON.stringify(result),
    messages,
  };
}

/** An SDK call's outcome: its result, or the JSON-RPC error it threw. */
export async function sdkOutcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    const result = await run() as { isError?: boolean };
    return { ok: result.isError !== true, message: textOf(result) || JSON.stringify(result) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** Runs `fn` with an SDK client of `who` (streamable HTTP, or legacy SSE), then closes it. */
export async function withClient<T>(
  url: string,
  who: string,
  fn: (c: Client) => Promise<T>,
  sse = false,
): Promise<T> {
  const client = sse
    ? await authedSseClient(url, token(who))
    : await authedHttpClient(url, token(who));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** One `tools/call` by an SDK client of `who` (streamable HTTP, or legacy SSE). */
export const callAs = (url: string, who: string, params: CallToolRequest["params"], sse = false) =>
  withClient(url, who, (c) => sdkOutcome(() => c.callTool(params)), sse);
