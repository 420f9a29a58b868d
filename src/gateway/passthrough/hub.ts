/**
 * The gateway-wide side of pass-through: open downstream sessions, tool calls in flight per
 * upstream (to route the server-to-client requests they cause) and the process each runs on
 * (`./serving.ts`), resource subscriptions shared across sessions (`./subscriptions.ts`), the
 * logging level sent upstream, and the handlers every upstream client gets.
 */
import type { ClientCapabilities, LoggingLevel } from "../../shared/protocol.ts";
import { messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import {
  type InputRelay,
  listenTo,
  type LogParams,
  resultSchemaOf,
  type Upstream,
  type UpstreamClient,
  type UpstreamPool,
  UserKey,
} from "../../upstream/mod.ts";
import type { CallContext, Caller, ClientChannel } from "../types.ts";
import { type ResourceSubscriber, SessionLink } from "./link.ts";
import { mostVerbose, relayLog } from "./logging.ts";
import type { ResourceIndex, ResourceTarget } from "./resource-index.ts";
import { answerRound, registerServerRequests } from "./server-requests.ts";
import { ResourceSubscriptions } from "./subscriptions.ts";
import { CallsInFlight } from "./calls-in-flight.ts";
import { serveOn } from "./serving.ts";

/** The key of a server's 2025 side among the clients the hub brought up to date. */
const SIDE_KEY = "2025";

/** A log message's params as its server's filters leave them. */
export type LogScreen = (server: string, params: LogParams) => LogParams;

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
   * Runs `fn` on the process serving a request to `shared` for its caller, handing it `job`
   * (`./serving.ts`).
   */
  serve<T, J = undefined>(
    shared: Upstream,
    options: CallContext,
    fn: (serving: Upstream, job: J) => Promise<T>,
    job: J,
  ): Promise<T> {
    return serveOn(this.#pool, this.calls, shared, options, fn, job);
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
    return this.#relay(serving, serving !== shared, call, call.client.capabilities);
  }

  /**
   * {@link inputRelay}'s relay: a function of its own, so a call to a 2025 upstream (most of
   * them) makes none of its closure's scope.
   */
  #relay(
    upstream: Upstream,
    own: boolean,
    call: CallContext,
    capabilities: ClientCapabilities | undefined,
  ): InputRelay {
    const relay: InputRelay = (method, params, signal) =>
      answerRound(this, upstream, call, method, params, signal, own);
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
      listenTo(client, { listChanged: () => this.#refresh(upstream.primary) });
      return;
    }
    if (owner) {
      // A client's own process: its requests go to that client. Its log messages go to it
      // when it is one of the sessions the hub relays logs to.
      const channel = owner as ClientChannel;
      registerServerRequests(this, upstream, client, channel);
      const session = channel as SessionLink;
      if (!this.#sessions.has(session)) return;
      listenTo(client, {
        log: (params) => relayLog([session], upstream.name, this.#screenLog(upstream.name, params)),
      });
      return;
    }
    registerServerRequests(this, upstream, client);
    // A 2025 side's list change is its server's: the catalog is read on the main connection.
    const refresh = () => this.#refresh(upstream.primary);
    listenTo(client, {
      log: (params) =>
        relayLog(this.#sessions, upstream.name, this.#screenLog(upstream.name, params)),
      resourceUpdated: (params) => this.#subscriptions.deliver(upstream, params),
      listChanged: refresh,
      resourceListChanged: refresh,
    });
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
    await u.request("logging/setLevel", { level }, resultSchemaOf("logging/setLevel")).catch((
      err,
    ) =>
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
