/**
 * The 2026-07-28 `tools/call` fast path. Served by the SDK, every modern request builds a fresh
 * `Server` with its handlers and a per-request transport, and the era codec validates request
 * and result again with zod: together about twice the gateway CPU of a 2025 session call (whose
 * own fast path is `../legacy/fast-call.ts`). A plain call is served here instead, straight
 * through the gateway core and its MRTR continuations, and answered the way the SDK answers it
 * (`resultType` and `serverInfo` stamped into the result, errors as JSON-RPC errors), by the
 * answer writer the 2025 fast path uses too (`../answers.ts`). A tool that may run as a task is
 * the SDK server's to serve (`./tasks.ts`, `mayRunAsTask`).
 *
 * "Plain" is decided after the SDK's own classifier: a modern request of revision 2026-07-28
 * whose standard headers are present and agree with the body, with a JSON content type, well
 * formed params, no progress token (progress needs a stream) and no MRTR retry fields. Anything
 * else — including every request the SDK's validation ladder would refuse — stays with the SDK,
 * which keeps owning those answers. So does the first `input_required` round of a call, which is
 * handed to the SDK already computed (see `authInfoOf`'s `ready`) so that the SDK checks and
 * encodes it.
 */
import { putOwn } from "../../shared/by-name.ts";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isInputRequiredResult,
  isJsonContentType,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
} from "@modelcontextprotocol/server";
import { enterCall, type Gateway } from "../../gateway/mod.ts";
import type { LazyCancellation } from "../../shared/call-context.ts";
import { toJsonRpcError } from "../../shared/errors.ts";
import { errorAnswer, resultBody, type ResultStamp } from "../answers.ts";
import { NAME, VERSION } from "../../version.ts";
import type { ModernTicket } from "./classify.ts";
import type { Continuations } from "./continuations.ts";
import { askable, envelopeCapabilities, unaskable } from "./flow-request.ts";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { decodeHeaderValue } from "./param-headers.ts";
import type { Caller } from "../../gateway/types.ts";

/** The revision this path serves; another one is the SDK's to answer. */
const REVISION = "2026-07-28";
/** `_meta` keys of the per-request envelope: the SDK lifts them out before handlers see `_meta`. */
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];
const SERVER_INFO = { name: NAME, version: VERSION };

/** A `tools/call` the fast path may serve. */
export interface PlainCall {
  readonly id: string | number;
  readonly name: string;
  readonly arguments: Record<string, unknown> | undefined;
  /** `_meta` without the envelope keys, as the SDK hands it to handlers. */
  readonly meta: Record<string, unknown> | undefined;
  /** What the client declared in the envelope (`_meta`): it may be asked nothing else. */
  readonly capabilities: ClientCapabilities | undefined;
}

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/**
 * The call in `request` when the fast path may serve it, else undefined (the SDK serves it).
 * Its headers are read as the classifier read them (`ticket.headers`), not a second time.
 */
export function plainCallOf(
  request: Request,
  ticket: ModernTicket | undefined,
): PlainCall | undefined {
  const route = ticket?.route;
  const headers = ticket?.headers;
  if (route?.kind !== "modern" || route.messageKind !== "request" || !headers) return;
  if (route.classification.revision !== REVISION) return;
  const message = route.message as { id?: unknown; method?: unknown; params?: unknown };
  const { id, params } = message;
  if (message.method !== "tools/call" || !isPlain(params)) return;
  if (typeof id !== "string" && typeof id !== "number") return;
  const { name, arguments: args, _meta } = params;
  if (typeof name !== "string" || !isPlain(_meta)) return;
  if (args !== undefined && !isPlain(args)) return;
  if ("inputResponses" in params || "requestState" in params) return;
  if (_meta.progressToken !== undefined) return;
  if (!isJsonContentType(request.headers.get("content-type"))) return;
  if (headers.protocolVersionHeader?.trim() !== REVISION) return;
  if (headers.mcpMethodHeader?.trim() !== "tools/call") return;
  // `Mcp-Name` may travel as `=?base64?…?=`: compared decoded, as the SDK compares it.
  const nameHeader = headers.mcpNameHeader?.trim();
  if (nameHeader === undefined || decodeHeaderValue(nameHeader) !== name) return;
  // Only the capabilities of the envelope are read on this path: no copy of it is made.
  let own: Plain | undefined;
  for (const key in _meta) {
    if (!Object.hasOwn(_meta, key) || ENVELOPE_KEYS.includes(key)) continue;
    putOwn(own ??= {}, key, _meta[key]);
  }
  const capabilities = Object.hasOwn(_meta, CLIENT_CAPABILITIES_META_KEY)
    ? envelopeCapabilities(_meta)
    : undefined;
  return { id, name, arguments: args, meta: own, capabilities };
}

/**
 * A request's own signal as its call's cancellation, read only when a layer listens to it or
 * asks for it: the runtime makes a request's `signal` at its first read, and a call to one of the
 * gateway's own tools never needs it.
 */
export class RequestCancellation implements LazyCancellation {
  constructor(readonly request: Request) {}

  get signal(): AbortSignal {
    return this.request.signal;
  }

  get aborted(): boolean {
    return this.request.signal.aborted;
  }

  addEventListener(type: "abort", listener: { handleEvent(): void }): void {
    this.request.signal.addEventListener(type, listener);
  }

  removeEventListener(type: "abort", listener: { handleEvent(): void }): void {
    this.request.signal.removeEventListener(type, listener);
  }
}

/** What the fast path answers: a response, or a computed first round for the SDK to send. */
export type FastAnswer = { response: Response } | { ready: unknown };

/**
 * Serves `call` for `caller` through the gateway core. An `input_required` answer comes back
 * as `ready`, for the SDK to check and encode.
 */
export async function serveCall(
  gateway: Gateway,
  continuations: Continuations,
  call: PlainCall,
  caller: Caller,
  cancellation: LazyCancellation,
): Promise<FastAnswer> {
  // No progress sink: a call that asks for progress takes the SDK's path, which can stream.
  const { capabilities } = call;
  try {
    // A client that can be asked nothing (the common call) goes straight to the core, as
    // `Continuations.call` would send it (`direct`, without progress): with a channel that
    // refuses every server-to-client request, on the request's own signal.
    const result = askable(capabilities)
      ? await continuations.call(
        { method: "tools/call", capabilities },
        enterCall(caller, { meta: call.meta, cancellation }),
        (options) => gateway.callTool(call.name, call.arguments, options),
      )
      : await gateway.callTool(
        call.name,
        call.arguments,
        enterCall(caller, { meta: call.meta, cancellation, client: unaskable(capabilities) }),
      );
    if (isInputRequiredResult(result)) return { ready: result };
    return { response: json(resultBody(call.id, result, MODERN_STAMP)) };
  } catch (err) {
    const error = toJsonRpcError(err);
    // As the SDK's 2026-07-28 codec does: -32002 (resource not found) goes out as -32602.
    const code = error.code === -32002 ? -32602 : error.code;
    // And as it answers a handler's error over HTTP: 400 for a missing client capability.
    const status = code === ProtocolErrorCode.MissingRequiredClientCapability ? 400 : 200;
    return { response: json(errorAnswer(call.id, { ...error, code }), status) };
  }
}

/**
 * A tool result as the SDK's 2026-07-28 codec writes it: `content: []` when it has none,
 * `resultType: "complete"` unless set, and the server's identity in `_meta`. A result with
 * content and neither of the others (what upstreams send) gets them appended to the text it
 * arrived as (see `../answers.ts`).
 */
export const MODERN_STAMP: ResultStamp = {
  appendable: (r) => r.content !== undefined && r.resultType === undefined && r._meta === undefined,
  text: `"resultType":"complete","_meta":${
    JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO })
  }`,
  apply(result) {
    const out: Plain = { ...result };
    if (out.content === undefined && !("task" in out)) out.content = [];
    out.resultType ??= "complete";
    const meta = out._meta;
    if (meta === undefined) out._meta = { [SERVER_INFO_META_KEY]: SERVER_INFO };
    else if (isPlain(meta) && meta[SERVER_INFO_META_KEY] === undefined) {
      out._meta = { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO };
    }
    return out;
  },
};

/** Made once: a `Response` copies its headers, and building them per answer was measurable. */
const JSON_HEADERS = new Headers({ "content-type": "application/json" });
const OK_INIT: ResponseInit = { status: 200, headers: JSON_HEADERS };

function json(text: string | ReadableStream<Uint8Array>, status = 200): Response {
  return new Response(text, status === 200 ? OK_INIT : { status, headers: JSON_HEADERS });
}
