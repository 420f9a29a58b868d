/**
 * One downstream session as pass-through sees it: the SDK server that talks to its client, what
 * the client declared, its logging level, its resource subscriptions and when it last did
 * something. It is also the key of the session's own processes of session-isolated servers.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ClientCapabilities, LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../types.ts";

/**
 * Whoever holds resource subscriptions through the hub: a 2025 session, or the 2026-07-28
 * door's `subscriptions/listen` streams as one.
 */
export interface ResourceSubscriber {
  /** Upstream subscription key (`server\0uri`) → the URI the client subscribed with. */
  readonly subscriptions: Map<string, string>;
  /** Delivers `notifications/resources/updated` (`uri` already the one the client knows). */
  resourceUpdated(params: { uri: string; [key: string]: unknown }): void;
  /** Whether its token reaches `server`; absent: admitted per URI by its front door. */
  sees?(server: string): boolean;
}

/** The session side of pass-through; the hub holds one per open downstream session. */
export class SessionLink implements ResourceSubscriber {
  /** The session's SDK server: server-to-client requests and notifications go through it. */
  readonly server: Server;
  /** Who the session is (read per use: the HTTP session id arrives after the server exists). */
  readonly caller: () => Caller;
  /** Activity tick from the hub: larger is more recent. */
  active = 0;
  /** Level the client set with `logging/setLevel`; unset = every message. */
  level: LoggingLevel | undefined;
  /** Upstream subscription key (`server\0uri`) → the URI the client subscribed with. */
  readonly subscriptions = new Map<string, string>();
  /**
   * Whether the session's token reaches `server` (its resources, completions and log messages);
   * the session server sets it from the token's current globs. Unset: every server.
   */
  sees: (server: string) => boolean = () => true;
  #closed = false;

  constructor(server: Server, caller: () => Caller) {
    this.server = server;
    this.caller = caller;
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
