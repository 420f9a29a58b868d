/**
 * The tasks the gateway remembers: which upstream task each exposed id stands for, which
 * process it lives on, and whose it is. Clients see an opaque random id per upstream task, bound
 * to the token (and profile endpoint) that created it, so ids cannot collide across servers nor
 * be guessed or used by another token. Each token holds at most its share of the table
 * (./task-share.ts): past it, its next creation is refused, and no other token's task is evicted.
 */
import type { Task } from "../../shared/protocol.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { Upstream } from "../../upstream/mod.ts";
import type { Gateway } from "../gateway.ts";
import type { Caller, ClientChannel, RequestAnswerer } from "../types.ts";
import { TaskShares } from "./task-share.ts";

/** One remembered task. */
export interface OwnedTask {
  readonly server: string;
  /** The exposed name of the tool the task runs (its result passes that server's filters). */
  readonly tool: string;
  /**
   * The process the task lives on when it is not the server's shared one: a session's own
   * (`isolation: session`), or its creator's own connection of a per-user server.
   */
  readonly process: Upstream | undefined;
  /** The process that created it: the one whose status notifications and requests are its. */
  readonly creator: Upstream;
  readonly upstreamId: string;
  readonly tokenName: string | null;
  /** The profile endpoint it was created on: only that endpoint sees it. */
  readonly profile: string | null;
  /** The lasting client that made it (a 2025 session): its status notifications go there. */
  readonly client: ClientChannel | undefined;
  expires: number;
  /** Known to have ended upstream: may make room for its token's next task (./task-share.ts). */
  ended: boolean;
  /** Who answers the task's own server requests (a 2026-07-28 client's task), when followed. */
  follower?: RequestAnswerer;
  /** Stops the watch of a 2026-07-28 upstream's task for its session (./modern-tasks.ts). */
  watch?: AbortController;
}

/** Longest a task is remembered without a TTL of its own. */
export const DEFAULT_TTL_MS = 60 * 60_000;

/** The exposed id → task table, and per process the upstream id → exposed id. */
export class TaskTable {
  #gateway: Gateway;
  #byId = new Map<string, OwnedTask>();
  /**
   * Per process, upstream task id → exposed id, for status notifications. Keyed by the process:
   * two sessions' processes, or two users' connections, may hand out the same upstream id.
   */
  #byUpstream = new WeakMap<Upstream, Map<string, string>>();
  #shares = new TaskShares();

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
  }

  /**
   * Reserves room for one task of `tokenName` before its upstream is asked, or throws
   * `RATE_LIMITED`; returns what to call once the task is remembered or its creation failed.
   */
  reserve(tokenName: string | null): () => void {
    this.#sweep();
    const perToken = this.#gateway.config.gateway.maxTasksPerToken;
    return this.#shares.reserve(this.#byId, tokenName, perToken, (id) => this.#forget(id));
  }

  /** Remembers a task `creator` made for `caller`; answers its exposed id and its record. */
  remember(
    { server, name: tool }: { server: string; name: string },
    { process, creator }: { process: Upstream | undefined; creator: Upstream },
    task: Task,
    caller: Caller,
    client: ClientChannel | undefined,
  ): { id: string; owned: OwnedTask } {
    // Room was reserved before the upstream was asked (TaskShares): nobody's task is evicted.
    const id = crypto.randomUUID();
    const ttl = typeof task.ttl === "number" ? task.ttl : DEFAULT_TTL_MS;
    const owned: OwnedTask = {
      server,
      tool,
      process,
      creator,
      upstreamId: task.taskId,
      tokenName: caller.tokenName,
      profile: caller.profile,
      client,
      expires: Date.now() + ttl + 60_000,
      ended: false,
    };
    this.#byId.set(id, owned);
    let ids = this.#byUpstream.get(creator);
    if (!ids) this.#byUpstream.set(creator, ids = new Map());
    ids.set(task.taskId, id);
    return { id, owned };
  }

  /** The task `id` names, if this caller's token created it; otherwise "not found". */
  owned(id: string, caller: Caller): OwnedTask {
    const owned = this.#byId.get(id);
    if (
      !owned || owned.tokenName !== caller.tokenName || owned.profile !== caller.profile ||
      owned.expires < Date.now()
    ) {
      throw new GatewayError("INVALID_ARGUMENTS", `unknown task "${String(id).slice(0, 80)}"`);
    }
    return owned;
  }

  /** The unexpired tasks of this caller's token on its profile endpoint, with their ids. */
  mine(caller: Caller): [string, OwnedTask][] {
    this.#sweep();
    return [...this.#byId].filter(([, o]) =>
      o.tokenName === caller.tokenName && o.profile === caller.profile
    );
  }

  /** The task process `from` knows as `upstreamId`, with its exposed id. */
  fromUpstream(from: Upstream, upstreamId: string): [string, OwnedTask] | undefined {
    const id = this.#byUpstream.get(from)?.get(upstreamId);
    const owned = id ? this.#byId.get(id) : undefined;
    return id && owned ? [id, owned] : undefined;
  }

  /** The process a task lives on: its session's own, else the server's shared one now. */
  processOf(owned: OwnedTask): Upstream | undefined {
    return owned.process ?? this.#gateway.pool.get(owned.server);
  }

  /** {@link processOf}, or `UPSTREAM_UNAVAILABLE` when its server is gone. */
  upstreamOf(owned: OwnedTask): Upstream {
    const upstream = this.processOf(owned);
    if (!upstream) {
      throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${owned.server}" is gone`);
    }
    return upstream;
  }

  /**
   * Whether `session` made a task still running: its status notifications go to that session,
   * so the session is kept past the short idle time (a task itself outlives its session: it is
   * its token's, read from any of them).
   */
  runsFor(session: ClientChannel): boolean {
    const now = Date.now();
    for (const o of this.#byId.values()) {
      if (o.client === session && !o.ended && o.expires >= now) return true;
    }
    return false;
  }

  #forget(id: string): void {
    const owned = this.#byId.get(id);
    if (!owned) return;
    owned.watch?.abort();
    this.#byId.delete(id);
    this.#byUpstream.get(owned.creator)?.delete(owned.upstreamId);
    if (owned.follower) {
      this.#gateway.passthrough.calls.unfollowTask(owned.creator, owned.upstreamId);
    }
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, o] of this.#byId) if (o.expires < now) this.#forget(id);
  }
}
