/**
 * The 2026-07-28 front door: the SDK v2's `createMcpHandler` in strict mode (`legacy:
 * 'reject'`), beside the 2025 session front door on the same `/mcp`. `classify` (./classify.ts)
 * decides which door a request takes, with the SDK's own classification, so the two can never
 * disagree; requests that carry a session id skip it (the modern revision has no sessions).
 * This module and the SDK it builds on are loaded at the first modern request (./lazy.ts).
 * A `tools/call` whose tool routes arguments into `Mcp-Param-*` headers has them checked first;
 * a `subscriptions/listen` that asks for resource updates gets them from upstream (./listen.ts).
 */
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Caller, Gateway } from "../../gateway/mod.ts";
import { GatewayError, messageOf, toJsonRpcError } from "../../shared/errors.ts";
import { copyOf, jsonOf, type ModernTicket } from "./classify.ts";
import { Continuations } from "./continuations.ts";
import { isListen, listenedUris, ListenFeed } from "./listen.ts";
import { guardOptions, guardStream, type StreamReport } from "../../shared/stream-guard.ts";
import { resourceTarget } from "../../gateway/operations.ts";
import { plainCallOf, RequestCancellation, serveCall } from "./fast-call.ts";
import { checkParamHeaders, declarationsOf } from "./param-headers.ts";
import { ScopedBus } from "./scoped-bus.ts";
import { mayRunAsTask } from "./tasks.ts";
import { authInfoOf } from "../caller-auth.ts";
import { createModernServer } from "./server.ts";
import { callerOf, type RequestIdentity } from "../door.ts";

/** Options of {@link createModernFront}. */
export interface ModernFrontOptions {
  maxBodyBytes: number;
  pageSize?: number;
  /** HMAC key sealing MRTR `requestState`; random per process when absent. */
  stateKey?: string;
  /** How long a call waiting for a client's `inputResponses` is kept (default 10 min). */
  continuationTtlMs?: number;
  /** Cluster hook: relays a continuation whose parked call another instance holds. */
  relay?: ModernRelay;
  /** Where listen streams report drops, closures and the bytes they hold (metrics). */
  streams?: StreamReport;
  /**
   * Admits one `subscriptions/listen` stream of `identity` as a session of its token (the
   * session table's share): what ends its hold, or the answer refusing it. Absent: no limit.
   */
  admitStream?: (identity: RequestIdentity) => (() => void) | Response;
}

/** What the cluster offers the modern door (see `src/cluster/relay.ts`). */
export interface ModernRelay {
  /** This instance's id, written in front of every `requestState` minted here. */
  readonly owner: string;
  /** Serves `request` through its owner when it continues a call held elsewhere, else null. */
  forward(request: Request, identity: RequestIdentity): Promise<Response | null>;
  /** Serves continuations other instances forward here. */
  attach(serve: (request: Request, identity: RequestIdentity) => Promise<Response>): void;
}

/** The modern door: serves one request, and stops. */
export interface ModernFront {
  /**
   * Serves one request; `ticket` holds its JSON body, the SDK's classification of it and the
   * headers the classification read, when {@link classify} has already made them.
   */
  fetch(request: Request, identity: RequestIdentity, ticket?: ModernTicket): Promise<Response>;
  /** Calls parked for a client's input right now. */
  parked(): number;
  close(): Promise<void>;
}

/** Longest cache lifetime offered for lists; shorter while the catalog has changed recently. */
const MAX_TTL_MS = 60_000;

/** Builds the modern door for `gateway`. */
export function createModernFront(gateway: Gateway, options: ModernFrontOptions): ModernFront {
  const continuations = new Continuations({
    ...(options.stateKey ? { key: options.stateKey } : {}),
    ttlMs: options.continuationTtlMs ?? 600_000,
    ...(options.relay ? { owner: options.relay.owner } : {}),
  });
  let lastChange = Date.now();
  let closed = false;
  // A list may be cached a tenth of the time the catalog has been stable, up to a minute, so a
  // reload or an upstream's list_changed is never hidden for long (listeners are told at once).
  const ttlMs = () => Math.min(MAX_TTL_MS, Math.floor((Date.now() - lastChange) / 10));
  // Listen streams hear of a list change only when their own token's view of it changed.
  const bus = new ScopedBus(
    gateway,
    (err) => gateway.log.debug("listen stream notification failed", { error: messageOf(err) }),
  );
  const handler = createMcpHandler(
    () =>
      createModernServer(gateway, {
        ttlMs,
        continuations,
        ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      }),
    {
      legacy: "reject",
      bus,
      maxRequestBodySize: options.maxBodyBytes,
      onerror: (err) => gateway.log.debug("modern request failed", { error: messageOf(err) }),
    },
  );
  const feed = new ListenFeed(gateway, (uri) => handler.notify.resourceUpdated(uri));
  const unsubscribe = gateway.subscribe({
    toolsChanged: () => {
      lastChange = Date.now();
      handler.notify.toolsChanged();
    },
    promptsChanged: () => {
      lastChange = Date.now();
      handler.notify.promptsChanged();
    },
    resourcesChanged: () => {
      lastChange = Date.now();
      handler.notify.resourcesChanged();
    },
  });
  // A reload that changes a profile changes what its endpoint lists, with no catalog change.
  const offConfig = gateway.observeConfig((prev, next) => {
    if (JSON.stringify(prev.profiles) === JSON.stringify(next.profiles)) return;
    lastChange = Date.now();
    handler.notify.toolsChanged();
    handler.notify.promptsChanged();
    handler.notify.resourcesChanged();
  });
  const local = async (
    request: Request,
    identity: RequestIdentity,
    ticket?: ModernTicket,
  ): Promise<Response> => {
    // The body is read once: the classifier's reading, else here (a relayed continuation).
    const body = ticket?.body ?? (request.method === "POST" ? await jsonOf(request) : undefined);
    // The request's one caller: every check and handler below judges it as this.
    const caller = callerOf(gateway, identity);
    const refused = refusedParams(gateway, caller, request, body);
    if (refused) return refused;
    // After close() the SDK's handler refuses every request; the fast path does not outlive it.
    const plain = closed ? undefined : plainCallOf(request, ticket);
    let ready: unknown;
    if (plain && !mayRunAsTask(gateway, plain.name, caller)) {
      const cancellation = new RequestCancellation(request);
      const answer = await serveCall(gateway, continuations, plain, caller, cancellation);
      if ("response" in answer) return answer.response;
      ready = answer.ready;
    }
    const uris = listenedUris(request, body);
    // The listen router fans an update out to every stream that named its URI, so a stream
    // may name only resources of the servers its token reaches: otherwise it is refused whole.
    const hidden = uris.find((uri) => !visibleUri(gateway, caller, uri));
    if (hidden !== undefined) return unknownResource(body, hidden);
    // A listen stream holds its place in the session table until it ends.
    const listen = isListen(request, body);
    const held = listen ? options.admitStream?.(identity) : undefined;
    if (held instanceof Response) return held;
    // What ends with the stream: its place in the table, its resource subscriptions.
    const ends: (() => void)[] = held ? [held] : [];
    const end = () => ends.forEach((e) => e());
    try {
      // Subscribed before the stream is acknowledged, so no update falls in between.
      if (uris.length > 0) ends.push(await feed.open(uris));
      const response = await bus.as(caller, () =>
        handler.fetch(request, {
          authInfo: authInfoOf(caller, ready),
          ...(body === undefined ? {} : { parsedBody: body }),
        }));
      if (!listen || !response.body) {
        end();
        return response;
      }
      // A listen stream lives as long as its client wants: bounded for a slow reader (it
      // carries no droppable notifications, so a flood closes it), and closed when its token
      // expires.
      const max = gateway.config.gateway.streamBufferBytes;
      return guardStream(response, {
        ...guardOptions("listen", max, identity.expiresAt, options.streams),
        ...(ends.length > 0 ? { onEnd: end } : {}),
      });
    } catch (err) {
      end();
      throw err;
    }
  };
  // Cluster hook: continuations of calls parked on another instance go there.
  const relay = options.relay;
  relay?.attach(local);
  return {
    fetch: relay
      ? async (request, identity, ticket) =>
        (continues(ticket?.body)
          ? await relay.forward(readable(request, ticket?.body), identity)
          : null) ??
          local(request, identity, ticket)
      : local,
    parked: () => continuations.size,
    async close() {
      closed = true;
      unsubscribe();
      offConfig();
      continuations.close();
      await handler.close();
    },
  };
}

/**
 * `request` with a body the relay can read: the door's classifier may have read it already
 * (./classify.ts), and then a copy holding `body` stands in.
 */
function readable(request: Request, body: unknown): Request {
  return request.bodyUsed && body !== undefined ? copyOf(request, JSON.stringify(body)) : request;
}

/**
 * False when `body` (already read) is plainly not the retry of a parked call — it has no
 * `requestState` — so the cluster relay need not read the request again to find out.
 */
function continues(body: unknown): boolean {
  if (body === undefined) return true;
  const params = (body as { params?: unknown } | null)?.params;
  return typeof params === "object" && params !== null && "requestState" in params;
}

/**
 * The 400 answer for a `tools/call` whose `Mcp-Param-*` headers disagree with its arguments, or
 * `undefined` to go on. The tool is the one the body names — the one that would run — so a
 * `Mcp-Name` sent as `=?base64?…?=`, or not at all, cannot step around the check; that the
 * header agrees with the body is the SDK's to answer. Only calls to a tool with `x-mcp-header`
 * declarations are checked.
 */
function refusedParams(
  gateway: Gateway,
  caller: Caller,
  request: Request,
  parsed: unknown,
): Response | undefined {
  if (request.method !== "POST") return;
  const body = parsed as
    | {
      id?: unknown;
      method?: unknown;
      params?: { name?: unknown; arguments?: unknown };
    }
    | null
    | undefined;
  if (body?.method !== "tools/call" || typeof body.params?.name !== "string") return;
  const entry = gateway.catalogOf(caller).toolsByName.get(body.params.name);
  if (!entry || declarationsOf(entry.tool).length === 0) return;
  const refused = checkParamHeaders(entry.tool, body.params.arguments, request.headers);
  if (!refused) return;
  const { status, ...error } = refused;
  return Response.json({ jsonrpc: "2.0", id: body.id ?? null, error }, { status });
}

/** True when `uri` is a resource of a server `caller`'s token reaches. */
function visibleUri(gateway: Gateway, caller: Caller, uri: string): boolean {
  try {
    resourceTarget(gateway, uri, caller);
    return true;
  } catch {
    return false;
  }
}

/** The answer to a listen request naming a resource its caller cannot see (as for an unknown). */
function unknownResource(body: unknown, uri: string): Response {
  const id = (body as { id?: unknown } | undefined)?.id ?? null;
  const error = toJsonRpcError(
    new GatewayError("RESOURCE_NOT_FOUND", `no server offers resource "${uri}"`, { data: { uri } }),
  );
  return Response.json({ jsonrpc: "2.0", id, error });
}
