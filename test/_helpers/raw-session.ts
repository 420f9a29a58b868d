/** A 2025 session opened by hand (plain fetch), for tests that speak raw HTTP to `/mcp`. */

/** What a streamable HTTP client sends with every POST. */
export const MCP_HEADERS: Record<string, string> = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** An initialize request body (2025-06-18, no capabilities). */
export const INITIALIZE = initializeBody("2025-06-18", {});

function initializeBody(protocolVersion: string, capabilities: object): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: "raw", version: "1.0.0" } },
  });
}

/**
 * Opens a streamable HTTP session (`initialize`, then `initialized`) with `headers` on both
 * requests; returns its id. `protocolVersion` and `capabilities`: the client's.
 */
export async function openSession(
  base: string,
  headers: Record<string, string> = {},
  { protocolVersion = "2025-06-18", capabilities = {} }: {
    protocolVersion?: string;
    capabilities?: object;
  } = {},
): Promise<string> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: initializeBody(protocolVersion, capabilities),
  });
  await res.body?.cancel();
  const sid = res.headers.get("mcp-session-id");
  if (res.status !== 200 || !sid) throw new Error(`initialize answered ${res.status}`);
  await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers, "mcp-session-id": sid },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((r) => r.body?.cancel());
  return sid;
}
