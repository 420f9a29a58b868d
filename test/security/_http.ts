/** HTTP helpers for the security tests: authed SDK clients, raw requests, a seeded PRNG. */
import { connect } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** Headers carrying a bearer token. */
export const bearer = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
});

/** An SDK client over streamable HTTP that sends `token`. */
export async function authedHttpClient(base: string, token: string): Promise<Client> {
  const client = new Client({ name: "security-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: bearer(token) },
    }),
  );
  return client;
}

/** An SDK client over legacy SSE that sends `token`. */
export async function authedSseClient(base: string, token: string): Promise<Client> {
  const client = new Client({ name: "security-test-sse", version: "1.0.0" });
  await client.connect(
    new SSEClientTransport(new URL(`${base}/sse`), { requestInit: { headers: bearer(token) } }),
  );
  return client;
}

export { INITIALIZE, MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";
import { MCP_HEADERS } from "../_helpers/raw-session.ts";

/** Sends a JSON-RPC ping on a session; resolves with the HTTP status. */
export async function ping(
  base: string,
  sid: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers, "mcp-session-id": sid },
    body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping" }),
  });
  await res.text();
  return res.status;
}

/** A response read off a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends exact bytes over TCP (so tests control `Host`, framing and invalid bytes) and reads one
 * response. Rejects after `timeoutMs` so a hang fails the test instead of stalling it.
 */
export function rawRequest(port: number, bytes: Uint8Array, timeoutMs = 10_000) {
  return new Promise<RawResponse>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs}ms`));
    }, timeoutMs);
    const finish = (r: RawResponse | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (r instanceof Error) reject(r);
      else resolve(r);
    };
    const tryParse = (ended: boolean) => {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        if (ended) finish(new Error(`connection closed without a response (${buf.length} bytes)`));
        return;
      }
      const [statusLine, ...lines] = buf.subarray(0, end).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const status = Number(statusLine!.split(" ")[1]);
      const rest = buf.subarray(end + 4);
      if (headers["transfer-encoding"]?.includes("chunked")) {
        const body = dechunk(rest);
        if (body !== null) finish({ status, headers, body: body.toString("utf8") });
        else if (ended) finish({ status, headers, body: rest.toString("utf8") });
      } else if (headers["content-length"] !== undefined) {
        const n = Number(headers["content-length"]);
        if (rest.length >= n) {
          finish({ status, headers, body: rest.subarray(0, n).toString("utf8") });
        } else if (ended) finish(new Error("connection closed mid-body"));
      } else if (ended || headers["content-type"]?.includes("text/event-stream")) {
        finish({ status, headers, body: rest.toString("utf8") });
      }
    };
    socket.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      tryParse(false);
    });
    socket.on("end", () => tryParse(true));
    socket.on("error", (err) => finish(err));
    socket.write(bytes);
  });
}

function dechunk(data: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol < 0) return null;
    const size = parseInt(data.subarray(at, eol).toString("latin1"), 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    if (data.length < eol + 2 + size + 2) return null;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Builds an HTTP/1.1 request's bytes. */
export function httpBytes(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array | string = "",
): Uint8Array {
  const payload = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  const head = Object.entries({ connection: "close", ...headers }).map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  const length = "transfer-encoding" in headers ? "" : `content-length: ${payload.length}\r\n`;
  return Buffer.concat([
    Buffer.from(`${method} ${path} HTTP/1.1\r\n${head}${length}\r\n`, "latin1"),
    payload,
  ]);
}

/** A small seeded PRNG (mulberry32): the same seed gives the same run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` echo calls as one JSON-RPC batch. */
export const batchOf = (n: number): string =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: "2.0",
      id: 100 + i,
      method: "tools/call",
      params: { name: "echo__echo", arguments: { text: `item ${i}` } },
    })),
  );

/** The JSON-RPC messages of a POST answer, whether JSON or an SSE stream. */
// deno-lint-ignore no-explicit-any
export function messagesOf(text: string): { id?: number; result?: unknown; error?: any }[] {
  if (text.startsWith("[") || text.startsWith("{")) return [JSON.parse(text)].flat();
  return text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)));
}
