/**
 * The SDK v2 client of a 2026-07-28 upstream, seen through {@link UpstreamClient}: the gateway
 * registers its sampling, elicitation, roots and notification handlers with the 1.x schemas it
 * already uses, and sends requests with 1.x result schemas. Underneath, every request is
 * stateless (the v2 client attaches the per-request `_meta` envelope), and an upstream's
 * `input_required` answer is fulfilled by the v2 client through those same registered handlers
 * (which relay to the calling client: a 2025 session's sampling/elicitation request, or a
 * 2026-07-28 client's own `input_required` round) and retried with the answers.
 */
import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamClient } from "../client.ts";
import { toLegacyError } from "./errors.ts";

type AnyHandler = (request: unknown, extra: unknown) => unknown;

/** A connected v2 client in the modern era, adapted to what the gateway calls. */
export class ModernClient implements UpstreamClient {
  readonly #client: V2Client;

  constructor(client: V2Client) {
    this.#client = client;
  }

  /** The revision the connection speaks (`2026-07-28`). */
  get protocolVersion(): string | undefined {
    return this.#client.getNegotiatedProtocolVersion();
  }

  getServerCapabilities: Client["getServerCapabilities"] = () =>
    this.#client.getServerCapabilities() as ServerCapabilities | undefined;

  request: Client["request"] = ((
    req: { method: string; params?: Record<string, unknown> },
    schema: never,
    options?: RequestOptions,
  ) =>
    guard(() =>
      req.method === "tools/call"
        // callTool mirrors the tool's declared `Mcp-Param-*` headers on streamable HTTP.
        ? this.#client.callTool(req.params as never, v2Options(options))
        : this.#client.request(req as never, schema, v2Options(options))
    )) as never;

  listTools: Client["listTools"] =
    ((params?: unknown, options?: RequestOptions) =>
      guard(() => this.#client.listTools(params as never, listOptions(options)))) as never;
  listPrompts: Client["listPrompts"] =
    ((params?: unknown, options?: RequestOptions) =>
      guard(() => this.#client.listPrompts(params as never, listOptions(options)))) as never;
  listResources: Client["listResources"] =
    ((params?: unknown, options?: RequestOptions) =>
      guard(() => this.#client.listResources(params as never, listOptions(options)))) as never;
  listResourceTemplates: Client["listResourceTemplates"] =
    ((params?: unknown, options?: RequestOptions) =>
      guard(() =>
        this.#client.listResourceTemplates(params as never, listOptions(options))
      )) as never;

  setRequestHandler: Client["setRequestHandler"] = ((schema: unknown, handler: AnyHandler) => {
    tolerate(() =>
      this.#client.setRequestHandler(
        methodOf(schema) as never,
        ((request: unknown, ctx: { mcpReq: { id: unknown; signal: AbortSignal } }) =>
          handler(request, { signal: ctx.mcpReq.signal, requestId: ctx.mcpReq.id })) as never,
      )
    );
  }) as never;

  setNotificationHandler: Client["setNotificationHandler"] = ((
    schema: unknown,
    handler: (n: unknown) => void,
  ) => {
    tolerate(() =>
      this.#client.setNotificationHandler(methodOf(schema) as never, handler as never)
    );
  }) as never;

  /** The 2026-07-28 revision has no roots notifications: nothing to tell. */
  sendRootsListChanged(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

/** The method a 1.x request or notification schema stands for (its `method` literal). */
function methodOf(schema: unknown): string {
  const method = (schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;
  if (typeof method !== "string") throw new TypeError("expected an MCP message schema");
  return method;
}

function v2Options(options: RequestOptions | undefined) {
  if (!options) return undefined;
  const { timeout, signal, onprogress, resetTimeoutOnProgress, maxTotalTimeout } = options;
  return {
    ...(timeout === undefined ? {} : { timeout }),
    ...(signal ? { signal } : {}),
    ...(onprogress ? { onprogress } : {}),
    ...(resetTimeoutOnProgress === undefined ? {} : { resetTimeoutOnProgress }),
    ...(maxTotalTimeout === undefined ? {} : { maxTotalTimeout }),
  };
}

/** Lists are always read fresh: the gateway keeps its own catalog and refreshes it on change. */
function listOptions(options: RequestOptions | undefined) {
  return { ...v2Options(options), cacheMode: "refresh" as const };
}

/**
 * Registers a handler, or skips one the v2 client refuses (a message the 2026-07-28 revision
 * does not have, such as task status): such a message can never arrive on this connection.
 */
function tolerate(register: () => void): void {
  try {
    register();
  } catch { /* not part of this revision */ }
}

async function guard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toLegacyError(err);
  }
}
