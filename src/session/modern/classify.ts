/**
 * @module Which door a request to `/mcp` takes: the 2025 sessions or the 2026-07-28 stateless
 * door. The SDK v2's classification decides, so the two doors can never disagree; but the SDK
 * package (~6 MiB of schemas and code, ~50 ms of CPU to load) is imported only when a request
 * could be modern. A 2025 client's session-less requests — its `initialize` above all — are
 * recognised by {@link plainlyLegacy}, a strict subset of what the SDK itself calls legacy, so a
 * 2025-only gateway never loads the v2 server.
 */
import type { InboundClassificationOutcome } from "@modelcontextprotocol/server";
// Members compared in any order: the SDK's schemas read them by name.
import { sameJson } from "../../tools/filters/same-json.ts";
import { parseLine } from "../../shared/lazy-json.ts";

/**
 * Which door a request takes, with its JSON body and the SDK's classification of it when reading
 * it was needed to decide. A legacy request whose body was read here (see {@link classify})
 * comes with `request`: a copy holding that body, for the 2025 door to read.
 */
export type Classification = { modern: false; request?: Request } | ModernTicket;

/**
 * What classifying a modern request learnt: its JSON body, the SDK's classification of it and
 * the headers that classification read (each read once, here; absent when the body was not
 * classified here, e.g. not JSON).
 */
export interface ModernTicket {
  readonly modern: true;
  readonly body?: unknown;
  readonly route?: InboundClassificationOutcome;
  readonly headers?: InboundHeaders;
}

/** The first revision of the modern era; the SDK compares revisions as strings, as here. */
const FIRST_MODERN = "2026-07-28";
/** The only keys a JSON-RPC request or notification may have (the SDK's schemas are strict). */
const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

type ServerSdk = typeof import("@modelcontextprotocol/server");
let sdk: Promise<ServerSdk> | undefined;
/** The SDK once imported: a request then needs no wait on the resolved import. */
let loaded: ServerSdk | undefined;
/** The SDK v2 server package, imported at the first request that needs it. */
export function serverSdk(): Promise<ServerSdk> {
  return sdk ??= import("@modelcontextprotocol/server").then((mod) => loaded = mod);
}

/**
 * Which door `request` belongs to: the 2026-07-28 one when it has no session id and the SDK
 * classifies it as modern (a per-request `_meta` envelope, or a body only the modern path may
 * answer). A POST's body is read here once and handed on, so neither the SDK's classifier nor
 * the modern door parses it again; a body that is not JSON is left to the SDK to answer. A JSON
 * body is classified with the SDK's `classifyInboundRequest` — what `isLegacyRequest` runs for a
 * parsed body — so that the outcome can be handed on too; unless it is {@link plainlyLegacy}.
 */
export async function classify(request: Request, maxBodyBytes: number): Promise<Classification> {
  if (request.headers.has("mcp-session-id")) return { modern: false };
  if (request.method !== "POST") return { modern: !request.headers.has("last-event-id") };
  const version = request.headers.get("mcp-protocol-version");
  // A request that names a 2026 revision is read once, not through a clone: the clone tees the
  // body into JavaScript streams, which cost a 2026-07-28 call ~15% of its CPU. The SDK sends
  // such a request to the 2025 door only when it is a batch, a posted response or not JSON;
  // that door then gets a copy of the body read here.
  const text = isModern(version) && declaredWithin(request, maxBodyBytes)
    ? await request.text().catch(() => undefined)
    : undefined;
  const read = text !== undefined;
  const body = read ? parsed(text) : await jsonOf(request);
  if (body !== undefined && plainlyLegacy(body, version)) return legacyOf(request, text);
  const { classifyInboundRequest, isLegacyRequest } = loaded ?? await serverSdk();
  if (body === undefined) {
    const judged = read ? copyOf(request, text) : request;
    if (await isLegacyRequest(judged, body, { maxRequestBodySize: maxBodyBytes })) {
      return legacyOf(request, text);
    }
    return { modern: true };
  }
  // Built field by field (an absent header is an absent field, as the SDK reads it): no spreads.
  const inbound: Inbound = { httpMethod: "POST" };
  if (version !== null) inbound.protocolVersionHeader = version;
  const method = request.headers.get("mcp-method");
  if (method !== null) inbound.mcpMethodHeader = method;
  const name = request.headers.get("mcp-name");
  if (name !== null) inbound.mcpNameHeader = name;
  const route = envelopeRoute(classifyInboundRequest, inbound, body) ??
    classifyInboundRequest({ ...inbound, body });
  return route.kind === "legacy"
    ? legacyOf(request, text)
    : { modern: true, body, route, headers: inbound };
}

/** Not modern: the 2025 door gets a readable copy when the body was read here (`text`). */
function legacyOf(request: Request, text: string | undefined): Classification {
  return text !== undefined ? { modern: false, request: copyOf(request, text) } : { modern: false };
}

/** True when an `MCP-Protocol-Version` header names a 2026-07-28 or later revision. */
function isModern(version: string | null): boolean {
  return version !== null && stripOws(version) >= FIRST_MODERN;
}

/**
 * True when the body's length is declared and within the limit, so reading it whole here cannot
 * change the SDK's verdict (it routes an oversized body to the modern door, for a 413).
 */
function declaredWithin(request: Request, maxBodyBytes: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && /^\d{1,15}$/.test(declared) && Number(declared) <= maxBodyBytes;
}

/** `text` parsed as JSON, or undefined when it is empty or not JSON (as the SDK reads it). */
function parsed(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return parseLine(text);
  } catch {
    return undefined;
  }
}

/** `request` again, holding `text` as its body (the original's was read). */
export function copyOf(request: Request, text: string): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: text,
    signal: request.signal,
  });
}

type Classifier = typeof import("@modelcontextprotocol/server").classifyInboundRequest;
type Inbound = Omit<Parameters<Classifier>[0], "body">;
/** The request's headers as the SDK's classifier reads them (an absent header: no field). */
export type InboundHeaders = Readonly<Inbound>;

/** A verdict the SDK gave, with a copy of the `_meta` it judged. */
interface Verdict {
  readonly meta: unknown;
  readonly outcome: InboundClassificationOutcome;
  /** True when the outcome has exactly the fields {@link withMessage} writes. */
  readonly known: boolean;
}

/**
 * The SDK's verdicts on envelopes seen recently, by {@link headersKey}, each with the `_meta` it
 * judged; bounded in all.
 */
const verdicts = new Map<string, Verdict[]>();
let verdictCount = 0;
const MAX_VERDICTS = 256;
/** The fields of a modern request's outcome, as this SDK writes them. */
const OUTCOME_FIELDS = "classification,kind,message,messageKind";

/**
 * The SDK's classification of a well-formed JSON-RPC request, from a verdict the SDK gave on
 * the same envelope before. Its classifier reads of a request only its top-level shape (which
 * is checked here first, as strictly as its schema), its method, its params' `_meta` (envelope
 * claim, envelope, progress token) and the three headers; the rest of the params is loose. So
 * the SDK is asked once per distinct (method, `_meta`, headers) — on a request carrying just
 * those — and a modern verdict is reused with the real message; a 2026-07-28 client sends the
 * same envelope with every call, and the zod parse of it was most of a call's classifying.
 * Undefined when the request is of another shape or the verdict was not modern: then the SDK
 * classifies the request itself.
 */
function envelopeRoute(
  classifier: Classifier,
  inbound: Inbound,
  body: unknown,
): InboundClassificationOutcome | undefined {
  if (!isPlain(body) || body.jsonrpc !== "2.0" || typeof body.method !== "string") return;
  if (body.method === "initialize") return;
  for (const key in body) if (!MESSAGE_KEYS.has(key)) return;
  if (typeof body.id !== "string" && !Number.isSafeInteger(body.id)) return;
  const params = body.params;
  if (!isPlain(params) || !isPlain(params._meta)) return;
  const meta = params._meta;
  const key = headersKey(body.method, inbound);
  let seen = verdicts.get(key);
  let verdict: Verdict | undefined;
  for (let i = 0; seen !== undefined && i < seen.length && !verdict; i++) {
    if (sameJson(seen[i]!.meta, meta)) verdict = seen[i];
  }
  if (!verdict) {
    const outcome = classifier({
      ...inbound,
      body: { jsonrpc: "2.0", id: 0, method: body.method, params: { _meta: meta } },
    });
    if (verdictCount >= MAX_VERDICTS) {
      verdicts.clear();
      verdictCount = 0;
      seen = undefined;
    }
    // A copy: the request's own `_meta` travels on, and nothing may change the key after.
    verdict = {
      meta: JSON.parse(JSON.stringify(meta)),
      outcome,
      known: Object.keys(outcome).sort().join() === OUTCOME_FIELDS,
    };
    if (seen) seen.push(verdict);
    else verdicts.set(key, [verdict]);
    verdictCount++;
  }
  const { outcome } = verdict;
  if (outcome.kind !== "modern" || outcome.messageKind !== "request") return;
  return verdict.known
    ? withMessage(outcome, body as typeof outcome.message)
    : { ...outcome, message: body as typeof outcome.message };
}

type ModernRequestOutcome = Extract<
  InboundClassificationOutcome,
  { kind: "modern"; messageKind: "request" }
>;

/** `outcome` carrying `message`, written as one literal (a spread of it cost every call). */
function withMessage(
  outcome: ModernRequestOutcome,
  message: ModernRequestOutcome["message"],
): ModernRequestOutcome {
  return {
    kind: outcome.kind,
    messageKind: outcome.messageKind,
    message,
    classification: outcome.classification,
  };
}

/**
 * The rest of what the SDK's classification of a well-formed request depends on, besides its
 * `_meta`: the method and the three headers, as one string. A header value holds no line break
 * (HTTP forbids it), so only the method, written last, may: the string names one tuple. An
 * absent header (`-`) stays apart from any value (`+…`).
 */
function headersKey(method: string, inbound: Inbound): string {
  const { protocolVersionHeader: v, mcpMethodHeader: m, mcpNameHeader: n } = inbound;
  // A client sends the same tuple call after call: the last key is kept, not built again.
  const last = lastKey;
  if (
    last !== undefined && last.v === v && last.m === m && last.n === n && last.method === method
  ) {
    return last.key;
  }
  const key = `${v === undefined ? "-" : "+" + v}\n${m === undefined ? "-" : "+" + m}\n${
    n === undefined ? "-" : "+" + n
  }\n${method}`;
  lastKey = { v, m, n, method, key };
  return key;
}

/** The tuple {@link headersKey} was last asked for, and its key. */
let lastKey:
  | {
    v: string | undefined;
    m: string | undefined;
    n: string | undefined;
    method: string;
    key: string;
  }
  | undefined;

/**
 * True when the SDK's classifier would call this JSON body legacy, by its own rules, for a
 * message that plainly is one: a well-formed JSON-RPC request or notification (`initialize`
 * included) whose params carry no `_meta` at all — so no envelope claim — sent without an
 * `MCP-Protocol-Version` header naming a modern revision. False means "ask the SDK", never
 * "modern": a batch, a posted response, any `_meta`, or a shape the SDK's schemas might refuse
 * all go to it.
 */
export function plainlyLegacy(body: unknown, protocolVersionHeader: string | null): boolean {
  if (protocolVersionHeader !== null && stripOws(protocolVersionHeader) >= FIRST_MODERN) {
    return false;
  }
  if (!isPlain(body) || body.jsonrpc !== "2.0" || typeof body.method !== "string") return false;
  for (const key in body) if (!MESSAGE_KEYS.has(key)) return false;
  if ("id" in body && typeof body.id !== "string" && !Number.isSafeInteger(body.id)) return false;
  if (!("params" in body)) return true;
  return isPlain(body.params) && !("_meta" in body.params);
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 9110 optional whitespace (SP, HTAB) stripped from both ends, as the SDK strips it. */
function stripOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value[start] === " " || value[start] === "\t")) start++;
  while (end > start && (value[end - 1] === " " || value[end - 1] === "\t")) end--;
  return value.slice(start, end);
}

/** The JSON body of `request` read from a clone (the request stays readable), if it parses. */
export async function jsonOf(request: Request): Promise<unknown> {
  try {
    return await request.clone().json();
  } catch {
    return undefined;
  }
}
