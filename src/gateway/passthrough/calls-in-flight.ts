/**
 * The calls in flight on each upstream on behalf of a client, and who follows each upstream
 * task: what routes a server-to-client request to the one client it belongs to
 * (`./server-requests.ts`). The call context itself is the record, so tracking a call
 * allocates nothing beyond the list it joins.
 */
import type { Upstream } from "../../upstream/mod.ts";
import type { CallContext, ClientChannel, RequestAnswerer } from "../types.ts";
import { cancellationOf } from "../../shared/call-context.ts";

/**
 * Whether `call` is served on `via`: a 2025 side (upstream/legacy-side.ts) serves only 2025
 * sessions' calls, so another client's call on the server asks nothing there.
 */
function servedOn(via: Upstream, call: CallContext): boolean {
  return via.primary === via || call.client?.era === "legacy";
}

/** Adds `call` to the list `lists` keeps under `key`. */
function add<K extends object | string>(
  lists: { get(key: K): CallContext[] | undefined; set(key: K, list: CallContext[]): unknown },
  key: K,
  call: CallContext,
): void {
  const list = lists.get(key);
  if (list) list.push(call);
  else lists.set(key, [call]);
}

/** Takes `call` out of `list` (the latest entry of it: a context is tracked once per list). */
function remove(list: CallContext[] | undefined, call: CallContext): void {
  const i = list ? list.lastIndexOf(call) : -1;
  if (i >= 0) list!.splice(i, 1);
}

/** Calls in flight per server and per user connection, and task followers per process. */
export class CallsInFlight {
  #inflight = new Map<string, CallContext[]>();
  /** Calls in flight per user's own connection of a per-user server (whose requests are theirs). */
  #onConnection = new WeakMap<Upstream, CallContext[]>();
  /**
   * Per process, upstream task id → who answers that task's server requests. Keyed by the
   * process, not the server's name: two sessions' processes, or two users' connections, of
   * one server may hand out the same task id.
   */
  #taskFollowers = new WeakMap<Upstream, Map<string, RequestAnswerer>>();

  /** Records a call in flight on `server` (the options object itself is the record). */
  track(server: string, call: CallContext): void {
    add(this.#inflight, server, call);
  }

  /** Removes a finished call. */
  untrack(server: string, call: CallContext): void {
    remove(this.#inflight.get(server), call);
  }

  /** Records a call in flight on one user's own connection of a per-user server. */
  trackOn(connection: Upstream, call: CallContext): void {
    add(this.#onConnection, connection, call);
  }

  /** Removes a finished call from its user's connection. */
  untrackOn(connection: Upstream, call: CallContext): void {
    remove(this.#onConnection.get(connection), call);
  }

  /**
   * Sends the server requests about an upstream task (related-task `_meta`) that `process`
   * sends to `follower`.
   */
  followTask(process: Upstream, upstreamTaskId: string, follower: RequestAnswerer): void {
    let followers = this.#taskFollowers.get(process.primary);
    if (!followers) this.#taskFollowers.set(process.primary, followers = new Map());
    followers.set(upstreamTaskId, follower);
  }

  /** Forgets a task's follower. */
  unfollowTask(process: Upstream, upstreamTaskId: string): void {
    this.#taskFollowers.get(process.primary)?.delete(upstreamTaskId);
  }

  /** Who answers the requests `process` sends about `upstreamTaskId`, if anyone follows it. */
  taskFollower(process: Upstream, upstreamTaskId: unknown): RequestAnswerer | undefined {
    if (typeof upstreamTaskId !== "string") return undefined;
    // A 2025 side's task is its server connection's: one table for both (upstream/legacy-side.ts).
    return this.#taskFollowers.get(process.primary)?.get(upstreamTaskId);
  }

  /**
   * Calls in flight on `server` on behalf of a client — a 2025 session's, or a 2026-07-28
   * client's parked call — oldest first; cancelled ones and those of closed sessions included,
   * since the upstream may still be working on them.
   */
  callsOn(server: string, via?: Upstream): CallContext[] {
    const calls = this.#inflight.get(server) ?? [];
    return calls.filter((c) => c.client !== undefined && (!via || servedOn(via, c)));
  }

  /**
   * Calls in flight on one user's own connection on behalf of a client, oldest first: only these
   * may answer what that connection asks (a per-user server's requests are its user's alone).
   */
  callsOnConnection(connection: Upstream): CallContext[] {
    const calls = this.#onConnection.get(connection.primary) ?? [];
    return calls.filter((c) => c.client !== undefined && servedOn(connection, c));
  }

  /** The most recent live call of `client` in flight on `server`. */
  latestCallOf(server: string, client: ClientChannel): CallContext | undefined {
    const list = this.#inflight.get(server) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i]!;
      if (c.client === client && !cancellationOf(c)?.aborted) return c;
    }
    return undefined;
  }
}
