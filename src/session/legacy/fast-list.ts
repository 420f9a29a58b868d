/**
 * The `tools/list` fast path for streamable HTTP sessions: a plain `tools/list` POST is answered
 * with the page the gateway prepared for the caller's view (its encoded JSON, written once per
 * view and catalog change), as plain JSON laid out as the SDK's session server writes it — no
 * list is filtered, serialised or encoded per request. Anything else goes to the SDK transport.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Caller, Gateway } from "../../gateway/mod.ts";
import { DEFAULT_PAGE_SIZE } from "../../gateway/paging.ts";
import { rendersApps } from "../../gateway/passthrough/mod.ts";
import { toJsonRpcError } from "../../shared/errors.ts";
import { errorAnswer } from "../answers.ts";

const ENCODER = new TextEncoder();
const HEAD = ENCODER.encode('{"result":');

/** A `tools/list` request the fast path can take. */
export interface FastListRequest {
  jsonrpc: "2.0";
  id: string | number;
  method: "tools/list";
  params?: { cursor?: string };
}

/**
 * True when a POST can take the fast path: one `tools/list` request whose params hold at most
 * a string cursor and `_meta`, from a client that accepts both answer forms, at a supported
 * protocol version.
 */
export function isFastList(req: Request, msg: unknown): msg is FastListRequest {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return false;
  const m = msg as Record<string, unknown>;
  if (m.method !== "tools/list" || m.jsonrpc !== "2.0") return false;
  if (typeof m.id !== "string" && (typeof m.id !== "number" || !Number.isSafeInteger(m.id))) {
    return false;
  }
  const p = m.params;
  if (p !== undefined) {
    if (!p || typeof p !== "object" || Array.isArray(p)) return false;
    for (const [k, v] of Object.entries(p)) {
      if (k === "cursor" ? typeof v !== "string" : k !== "_meta") return false;
    }
  }
  const accept = req.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
  const version = req.headers.get("mcp-protocol-version");
  return version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The answer to `msg` for `caller` on session `sessionId` (client `capabilities`): the prepared
 * page's bytes between the members the SDK's session server writes around a result. The three
 * parts are streamed as they are: the page goes out from the prepared copy every request shares,
 * where one body made of them (a Blob) would copy the whole page into new memory each time.
 */
export function fastList(
  msg: FastListRequest,
  ctx: {
    gateway: Gateway;
    caller: Caller;
    capabilities: unknown;
    sessionId: string;
    pageSize: number | undefined;
  },
): Response {
  let body: BodyInit;
  try {
    const list = ctx.gateway.preparedList(ctx.caller, rendersApps(ctx.capabilities));
    const bytes = list.pageBytes(msg.params?.cursor, ctx.pageSize ?? DEFAULT_PAGE_SIZE);
    const tail = ENCODER.encode(`,"jsonrpc":"2.0","id":${JSON.stringify(msg.id)}}`);
    body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(HEAD);
        controller.enqueue(bytes);
        controller.enqueue(tail);
        controller.close();
      },
    });
  } catch (err) {
    body = errorAnswer(msg.id, toJsonRpcError(err));
  }
  return new Response(body, {
    headers: { "mcp-session-id": ctx.sessionId, "content-type": "application/json" },
  });
}
