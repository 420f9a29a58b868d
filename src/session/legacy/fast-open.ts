/**
 * Opening a 2025 session without building its SDK server: a plain `initialize` POST is answered
 * here (the result the SDK's session server gives, as plain JSON), and the client's
 * `notifications/initialized` after it is taken here too. Together with the `tools/call` and
 * `tools/list` fast paths, a session that only opens, lists and calls never builds a server,
 * and opening one leaves no server behind as garbage (`./streamable-session.ts`). Anything
 * else — a batch, odd headers — goes to the SDK transport, which answers the errors.
 */
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import {
  type InitializeRequest,
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { SERVER_INFO } from "./server.ts";

/** An `initialize` request the fast path can take. */
export type FastOpenRequest = InitializeRequest & { jsonrpc: "2.0"; id: string | number };

/** The `notifications/initialized` message the fast path can take. */
export interface FastInitializedNote {
  jsonrpc: "2.0";
  method: "notifications/initialized";
  params?: Record<string, unknown>;
}

/** What the SDK transport checks of every POST before it reads a message. */
function plainPost(req: Request): boolean {
  const accept = req.headers.get("accept") ?? "";
  return accept.includes("application/json") && accept.includes("text/event-stream") &&
    isJsonContentType(req.headers.get("content-type"));
}

/** True when `msg` is one well-formed `initialize` request in a POST the SDK would take. */
export function isFastOpen(req: Request, msg: unknown): msg is FastOpenRequest {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return false;
  const { id, jsonrpc } = msg as { id?: unknown; jsonrpc?: unknown };
  if (jsonrpc !== "2.0") return false;
  if (typeof id !== "string" && (typeof id !== "number" || !Number.isSafeInteger(id))) {
    return false;
  }
  return isInitializeRequest(msg) && plainPost(req);
}

/**
 * The answer to `msg`, laid out as the SDK's session server writes it: the protocol version the
 * client asked for when supported (else the latest), the capabilities, the server's info.
 */
export function openAnswer(msg: FastOpenRequest, capabilities: ServerCapabilities): string {
  const asked = msg.params.protocolVersion;
  const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
    ? asked
    : LATEST_PROTOCOL_VERSION;
  return JSON.stringify({
    result: { protocolVersion, capabilities, serverInfo: SERVER_INFO },
    jsonrpc: "2.0",
    id: msg.id,
  });
}

/**
 * True when a POST on a session carries just `notifications/initialized`, well formed, with
 * the headers the SDK transport would take (a supported protocol version, if one is named).
 */
export function isFastInitialized(req: Request, msg: unknown): msg is FastInitializedNote {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return false;
  const m = msg as Record<string, unknown>;
  if (m.method !== "notifications/initialized" || m.jsonrpc !== "2.0" || "id" in m) return false;
  const p = m.params;
  if (p !== undefined && (!p || typeof p !== "object" || Array.isArray(p))) return false;
  const version = req.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  return plainPost(req);
}
