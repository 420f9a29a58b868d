/**
 * The gateway-wide side of pass-through: open downstream sessions, tool calls in flight per
 * upstream (to route the server-to-client requests they cause), resource subscriptions shared
 * across sessions (`./subscriptions.ts`), the logging level sent upstream, and the handlers every
 * upstream client gets.
 */
import {
  EmptyResultSchema,
  type LoggingLevel,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import {
  type InputRelay,
  type Upstream,
  type UpstreamClient,
  type UpstreamPool,
  UserKey,
} from "../../upstream/mod.ts";
import { authModeOf } from "../../upstream/oauth/mod.ts";
import type { CallContext, Caller, ClientChannel } from "../types.ts";
import { rendersApps } from "./app-uris.ts";
import { type ResourceSubscriber, SessionLink } from "./link.ts";
import { mostVerbose, relayLog } from "./logging.ts";
import type { ResourceIndex, ResourceTarget } from "./resource-index.ts";
import { answerRound, registerServerRequests } from "./server-requests.ts";
import { ResourceSubscriptions } from "./subscriptions.ts";
import { CallsInFlight } from "./calls-in-flight.ts";

/** The key of a server's 2025 side among the clients the hub brought up to date. */
const SIDE_KEY = "2025";

/** A log message's params as its server's filters leave them. */
export type LogScreen = (
  server: string,
  params: LoggingMessageNotification["params"],
) => LoggingMessageNotification["params"];

/** Pass-through state shared by every session of one gateway. */
export class PassthroughHub {
  readonly log: Logger;
  #pool: UpstreamPool;
  #sessions = new Set<SessionLink>();
  /** Calls in flight and the tasks followed, to route what upstreams ask (`./calls-in-flight.ts`). */
  readonly calls = new CallsInFlight();
  #tick = 0;
  #level: LoggingLevel | undefined;
  /** The client each upstream had at the last rebuild: a new one gets levels and subscriptions. */
  #clients = new Map<string, UpstreamClient>();
  readonly #subscriptions: ResourceSubscriptions;
  #refreshing = new WeakMap<Upstream, { again: boolean }>();
  readonly #screenLog: LogScreen;
  /** Upstreams that announced a change while still connecting. */
  #pending = new WeakSet<Upstream>();

  /**
   * `screenLog`: a log message's params as its server's filters leave them (the gateway's
   * result screen); without one, as they came.
   */
  constructor(
    pool: UpstreamPool,
    index: () => ResourceIndex,
    log: Logger,
    screenLog: LogScreen = (_, params) => params,
  ) {
    this.#pool = pool;
    this.#subscriptions = new ResourceSubscriptions(pool, index, log);
    this.log = log;
    this.#screenLog = screenLog;
  }

  /** Open sessions. */
  get sessions(): ReadonlySet<SessionLink> {
    return this.#sessions;
  }

  /** Registers a new downstream session; its server is bound to the link it returns. */
  attach(caller: () => Caller): SessionLink {
    const link = new SessionLink(caller, this.#touchLink);
    this.touch(link);
    this.#sessions.add(link);
    return link;
  }

  /**
   * Forgets a closed session: drops its subscriptions and its say in the logging level, and
   * stops its own processes of session-isolated servers.
   */
  detach(link: SessionLink): void {
    if (!this.#sessions.delete(link)) return;
    link.close();
    void this.#pool.isolated.release(link);
    this.release(link);
    if (link.level !== undefined) void this.applyLevel();
  }

  /** {@link touch} as one function every link shares. */
  readonly #touchLink = (link: SessionLink) => this.touch(link);

  /** Marks a session as the most recently active one. */
  touch(link: SessionLink): void {
    link.active = ++this.#tick;
  }

  /**
   * Runs `fn` on the process that serves a request to `shared` for whoever it is for, recorded
   * as in flight on the server while it runs when a client is behind it (a 2025 session or a
   * 2026-07-28 request flow), so the upstream's sampling, elicitation and roots requests
   * meanwhile reach that client. For a server with `isolation: session` the process is the
   * caller's own — a session's (started on its first call, stopped when the session closes) or
   * a request flow's (an MRTR flow is the revision's unit of a client's work: started for the
   * request, stopped when it ends); otherwise, and for requests with no client behind them (the
   * CLI), the shared one. Tool calls, `prompts/get` and `resources/read` all go through here.
   * Under `apps: auto` a caller's own process is offered the MCP Apps extension only when its
   * client declared it.
   * The caller's token (`options.caller`) holds at most the server's `maxSessionsPerToken` such
   * processes.
   */
  async serve<T>(
    shared: Upstream,
    options: CallContext,
    fn: (serving: Upstream) => Promise<T>,
  ): Promise<T> {
    const track = options.client !== undefined;
    // The options object is the in-flight record: no allocation beyond what routing needs.
    if (track) this.calls.track(shared.name, options);
    let done: (() => void) | undefined;
    let own: Upstream | undefined;
    try {
      // A server every caller shares (no session isolation, no per-user connection: see
      // `#serving`) is served on its own process, with no wait here.
      const config = shared.config;
      if (config.isolation !== "session" && (config.kind !== "http" || config.oauth === null)) {
        return await fn(shared);
      }
      const serving = await this.#serving(shared, options);
      done = serving.done;
      if (track && serving.user) {
        own = serving.upstream;
        this.calls.trackOn(own, options);
      }
      return await fn(serving.upstream);
    } finally {
      if (track) this.calls.untrack(shared.name, options);
      if (own) this.calls.untrackOn(own, options);
      done?.();
    }
  }

  /** The process {@link serve} runs on, and what ends it when it is a request flow's own. */
  async #serving(
    shared: Upstream,
    options: CallContext,
  ): Promise<{ upstream: Upstream; done?: () => void; user?: true }> {
    const config = shared.config;
    const { tokenName, subjectToken } = options.caller;
    // The server's auth mode says whether the caller has a connection of its own.
    const personal = config.kind === "http"
      ? authModeOf(config)?.connectionFor(
        config,
        { identity: tokenName, subjectToken },
        (identity, token) => this.#pool.forUser(config, identity, token),
      )
      : undefined;
    if (personal) return { upstream: await personal, user: true };
    if (config.isolation !== "session") return { upstream: shared };
    const client = options.client;
    if (!client) return { upstream: shared };
    if (client.closed) {
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `the session closed, so it has no process of server "${shared.name}"`,
        { data: { server: shared.name } },
      );
    }
    const own = await this.#isolated(shared, client, tokenName);
    // One call's channel: its process ends with the call.
    if (!client.lasting) {
      return { upstream: own, done: () => void this.#pool.isolated.release(client) };
    }
    // A lasting one's stays until it closes, when its door releases it (or now, if it did).
    if (client.closed) void this.#pool.isolated.release(client);
    return { upstream: own };
  }

  /** `owner`'s own process of a session-isolated server, offered Apps as its client declared. */
  #isolated(
    shared: Upstream,
    owner: ClientChannel,
    tokenName: string | null,
  ): Promise<Upstream> {
    const apps = rendersApps(owner.capabilities);
    return this.#pool.isolated.acquire(shared.config, owner, tokenName, undefined, apps);
  }

  /**
   * The relay of a call's own input rounds (a 2026-07-28 upstream's `input_required`): they go
   * to the client behind `call` and nowhere else (its roots too, when `serving` is the caller's
   * own process of `shared`'s server). `undefined` for a 2025 upstream, whose requests are
   * routed as they arrive, and when no client is behind the call.
   */
  inputRelay(serving: Upstream, shared: Upstream, call: CallContext): InputRelay | undefined {
    if (serving.era !== "modern") return undefined;
    if (call.client === undefined) return undefined;
    const upstream = serving;
    const own = serving !== shared;
    const relay: InputRelay = (method, params, signal) =>
      answerRound(this, upstream, call, method, params, signal, own);
    const capabilities = call.client.capabilities;
    return capabilities ? Object.assign(relay, { capabilities }) : relay;
  }

  /**
   * Registers pass-through handlers on a new upstream client, before its handshake. `owner` is
   * the session a session-isolated process belongs to: its requests and log messages go there.
   */
  setupClient(upstream: Upstream, client: UpstreamClient, owner?: object): void {
    if (owner instanceof UserKey) {
      // One identity's own connection: its requests go to that identity's call in flight on it
      // (never another identity's); its list changes re-read its catalog, which only that
      // identity's view is built from. Its log messages are not relayed: no session is known
      // to be the one they are for.
      registerServerRequests(this, upstream, client, owner);
      const refresh = () => this.#refresh(upstream.primary);
      client.setNotificationHandler(ToolListChangedNotificationSchema, refresh);
      client.setNotificationHandler(PromptListChangedNotificationSchema, refresh);
      return;
    }
    if (owner) {
      // A client's own process: its requests go to that client. Its log messages go to it
      // when it is one of the sessions the hub relays logs to.
      const channel = owner as ClientChannel;
      registerServerRequests(this, upstream, client, channel);
      const session = channel as SessionLink;
      if (!this.#sessions.has(session)) return;
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        relayLog([session], upstream.name, this.#screenLog(upstream.name, n.params));
      });
      return;
    }
    registerServerRequests(this, upstream, client);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      relayLog(this.#sessions, upstream.name, this.#screenLog(upstream.name, n.params));
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      this.#subscriptions.deliver(upstream, n.params);
    });
    // A 2025 side's list change is its server's: the catalog is read on the main connection.
    const refresh = () => this.#refresh(upstream.primary);
    client.setNotificationHandler(ToolListChangedNotificationSchema, refresh);
    client.setNotificationHandler(PromptListChangedNotificationSchema, refresh);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, refresh);
  }

  /** After a catalog rebuild: brings newly connected clients (and 2025 sides) up to date. */
  onRebuild(upstreams: readonly Upstream[]): void {
    for (const u of upstreams) {
      const client = u.client;
      if (client && this.#pending.delete(u)) this.#refresh(u);
      this.#renew(u, u.name);
      if (u.legacySide) this.#renew(u.legacySide, `${u.name}\0${SIDE_KEY}`);
    }
  }

  /** Sends `u`'s new client (if it has one) the logging level and the subscriptions held. */
  #renew(u: Upstream, key: string): void {
    const client = u.client;
    if (!client || this.#clients.get(key) === client) return;
    this.#clients.set(key, client);
    if (this.#level && client.getServerCapabilities()?.logging) {
      void this.#setUpstreamLevel(u, this.#level);
    }
    this.#subscriptions.renew(u);
  }

  /** Sends the most verbose level any session asked for to every upstream that logs. */
  async applyLevel(): Promise<void> {
    const level = mostVerbose(this.#sessions);
    if (level === undefined || level === this.#level) return;
    this.#level = level;
    const all = this.#pool.all().flatMap((u) => u.legacySide ? [u, u.legacySide] : [u]);
    await Promise.all(
      all.filter((u) => u.client?.getServerCapabilities()?.logging).map((u) =>
        this.#setUpstreamLevel(u, level)
      ),
    );
  }

  /** Drops every subscription `sub` holds (a session closed, a listen stream ended). */
  release(sub: ResourceSubscriber): void {
    this.#subscriptions.release(sub);
  }

  /** See {@link ResourceSubscriptions.subscribable}. */
  subscribable(era: "legacy" | "modern"): boolean {
    return this.#subscriptions.subscribable(era);
  }

  /** Subscribes a session to an upstream resource (one upstream subscription per URI). */
  subscribe(link: ResourceSubscriber, target: ResourceTarget, exposed: string): Promise<void> {
    return this.#subscriptions.subscribe(link, target, exposed);
  }

  /** Ends a session's subscription; the last one out unsubscribes upstream. */
  unsubscribe(link: ResourceSubscriber, target: ResourceTarget): Promise<void> {
    return this.#subscriptions.unsubscribe(link, target);
  }

  /** Ends the subscription `sub` holds under `key` (one of its `subscriptions`). */
  leave(sub: ResourceSubscriber, key: string): Promise<void> {
    return this.#subscriptions.leave(sub, key);
  }

  async #setUpstreamLevel(u: Upstream, level: LoggingLevel): Promise<void> {
    await u.request("logging/setLevel", { level }, EmptyResultSchema).catch((err) =>
      this.log.debug("upstream logging/setLevel failed", { server: u.name, error: messageOf(err) })
    );
  }

  /** Re-reads an upstream's catalog after `list_changed`; bursts coalesce into one more read. */
  #refresh(upstream: Upstream): void {
    if (!upstream.client) {
      this.#pending.add(upstream);
      return;
    }
    const running = this.#refreshing.get(upstream);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.#refreshing.set(upstream, state);
    void (async () => {
      do {
        state.again = false;
        await upstream.refresh();
      } while (state.again);
      this.#refreshing.delete(upstream);
    })();
  }
}
