/** Raw HTTP helpers for the fast-path tests: the headers a client sends, and a session opened by hand. */
import assert from "node:assert/strict";

/** What a streamable HTTP client sends with every POST. */
export const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/**
 * Opens a 2025 session with raw requests (`initialize`, then `initialized`); its id. `token`:
 * sent as a bearer token; `capabilities`: the client's.
 */
export async function openSession(
  url: string,
  protocolVersion = "2025-06-18",
  { token, capabilities = {} }: { token?: string; capabilities?: object } = {},
): Promise<string> {
  const headers = token ? { ...HEADERS, authorization: `Bearer ${token}` } : HEADERS;
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion, capabilities, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  await res.body?.cancel();
  const sid = res.headers.get("mcp-session-id");
  assert.ok(sid);
  await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": sid },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((r) => r.body?.cancel());
  return sid;
}
