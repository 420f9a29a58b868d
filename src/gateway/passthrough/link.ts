/**
 * One downstream session as pass-through sees it: the SDK server that talks to its client, what
 * the client declared, its logging level, its resource subscriptions and when it last did
 * something. It is also the key of the session's own processes of session-isolated servers.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type ClientCapabilities,
  type LoggingLevel,
  type Request,
  ResultSchema,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../../shared/errors.ts";
import type { Caller, ChannelRequestOptions, ClientChannel } from "../types.ts";
import { missingCapability } from "./capabilities.ts";

/**
 * Whoever holds resource subscriptions through the hub: a 2025 session, or the 2026-07-28
 * door's `subscriptions/listen` streams as one.
 */
export interface ResourceSubscriber {
  /** The era it speaks: a 2025 session's subscriptions go to a server's 2025 side if it has one. */
  readonly era: "legacy" | "modern";
  /** Upstream subscription key (opaque to it) → the URI the client subscribed with. */
  readonly subscriptions: Map<string, string>;
  /** Delivers `notifications/resources/updated` (`uri` already the one the client knows). */
  resourceUpdated(params: { uri: string; [key: string]: unknown }): void;
  /** Whether its token reaches `server`; absent: admitted per URI by its front door. */
  sees?(server: string): boolean;
}

/**
 * The session side of pass-through; the hub holds one per open downstream session. It is the
 * channel of every call the session makes: what an upstream asks during one goes out through
 * the session's SDK server, on the stream of the request it belongs to.
 */
export class SessionLink implements ResourceSubscriber, ClientChannel {
  readonly era = "legacy";
  readonly askable = true;
  /** It outlives its calls: its own processes stay until it closes. */
  readonly lasting = true;
  /** The session's SDK server: server-to-client requests and notifications go through it. */
  readonly server: Server;
  /** Who the session is (read per use: the HTTP session id arrives after the server exists). */
  readonly caller: () => Caller;
  /** Activity tick from the hub: larger is more recent. */
  active = 0;
  /** Level the client set with `logging/setLevel`; unset = every message. */
  level: LoggingLevel | undefined;
  /** Upstream subscription key (opaque to it) → the URI the client subscribed with. */
  readonly subscriptions = new Map<string, string>();
  /**
   * Whether the session's token reaches `server` (its resources, completions and log messages);
   * the session server sets it from the token's current globs. Unset: every server.
   */
  sees: (server: string) => boolean = () => true;
  #closed = false;
  #touch: (link: SessionLink) => void;

  /** `touch`: marks the session the most recently active one (it is asked something). */
  constructor(server: Server, caller: () => Caller, touch: (link: SessionLink) => void = () => {}) {
    this.server = server;
    this.caller = caller;
    this.#touch = touch;
  }

  /**
   * Asks the session's client, after checking it declared it can answer: the SDK would send
   * the request regardless, and the client would fail it less clearly.
   */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: ChannelRequestOptions,
  ): Promise<unknown> {
    const req = { method, ...(params ? { params } : {}) } as Request;
    const missing = missingCapability(this.capabilities, req);
    if (missing) {
      throw new GatewayError(
        "UNSUPPORTED",
        `the client of the calling session did not declare ${missing}, so it cannot answer ` +
          `${method} from server "${options.server}"`,
        { data: { server: options.server, method, capability: missing } },
      );
    }
    this.#touch(this);
    return await this.server.request(
      // Any of the three server-to-client requests; the client's answer is checked by the SDK.
      { method, params: sessionParams(req) } as ServerRequest,
      ResultSchema,
      {
        signal: options.signal,
        timeout: options.timeoutMs,
        ...(options.relatedRequestId === undefined
          ? {}
          : { relatedRequestId: options.relatedRequestId }),
      },
    );
  }

  notify(
    method: string,
    params: Record<string, unknown>,
    relatedRequestId?: string | number,
  ): void {
    if (this.#closed) return;
    void this.server.notification(
      { method, params },
      relatedRequestId === undefined ? undefined : { relatedRequestId },
    ).catch(() => {});
  }

  /** What the client declared at `initialize` (empty before it). */
  get capabilities(): ClientCapabilities {
    return this.server.getClientCapabilities() ?? {};
  }

  /** True once the session has closed. */
  get closed(): boolean {
    return this.#closed;
  }

  resourceUpdated(params: { uri: string; [key: string]: unknown }): void {
    void this.server.sendResourceUpdated(params).catch(() => {});
  }

  /** Marks the session closed; the hub stops routing to it. */
  close(): void {
    this.#closed = true;
  }
}

/**
 * `req`'s params as a 2025 session reads them. A 2026-07-28 URL elicitation names no
 * `elicitationId` (its input key names it), which 2025-11-25 requires: one is made up.
 */
function sessionParams(req: Request): Request["params"] {
  const params = req.params;
  if (req.method !== "elicitation/create" || params?.mode !== "url") return params;
  if (typeof params.elicitationId === "string") return params;
  return { ...params, elicitationId: crypto.randomUUID() };
}
