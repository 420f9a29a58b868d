/**
 * Tasks pass-through: a `tools/call` with a `task` parameter creates the task on the upstream
 * that owns the tool, and `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` go to that
 * upstream. Clients see an opaque random task id per upstream task, bound to the token that
 * created it, so ids cannot collide across servers nor be guessed or used by another token.
 * Each token holds at most its share of the task table (./task-share.ts): past it, its next
 * creation is refused, and no other token's task is evicted. Status notifications go to the
 * session that created the task. A task may have a follower (a
 * 2026-07-28 client's task): the server requests the upstream sends about it go there.
 */
import {
  type CallToolRequest,
  CancelTaskResultSchema,
  type CreateTaskResult,
  CreateTaskResultSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  type Task,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../../shared/errors.ts";
import type { Upstream, UpstreamClient } from "../../upstream/mod.ts";
import type { Gateway } from "../gateway.ts";
import type { CallNotes } from "../call-records.ts";
import { filterContext } from "../filters/mod.ts";
import type { CallContext, Caller, CallOrigin } from "../types.ts";
import type { SessionLink } from "./link.ts";
import { TaskShares } from "./task-share.ts";

interface Owned {
  readonly server: string;
  /** The exposed name of the tool the task runs (its result passes that server's filters). */
  readonly tool: string;
  /** The session's own process the task lives on (`isolation: session`); else the shared one. */
  readonly process: Upstream | undefined;
  readonly upstreamId: string;
  readonly tokenName: string | null;
  /** The profile endpoint it was created on: only that endpoint sees it. */
  readonly profile: string | null;
  readonly session: SessionLink | undefined;
  expires: number;
  /** Known to have ended upstream: may make room for its token's next task (./task-share.ts). */
  ended: boolean;
  /** Who answers the task's own server requests (a 2026-07-28 client's task), when followed. */
  follower?: CallOrigin;
}

/** Longest a task is remembered without a TTL of its own. */
export const DEFAULT_TTL_MS = 60 * 60_000;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** Routes task requests to the upstream that owns each task. */
export class TaskRouter {
  #gateway: Gateway;
  #byId = new Map<string, Owned>();
  /** `server\0upstreamId` → exposed id, for status notifications. */
  #byUpstream = new Map<string, string>();
  #shares = new TaskShares();

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
  }

  /**
   * Creates a task upstream for a task-augmented `tools/call`. Only `Gateway.createTask` calls
   * this, inside the call gate; `onServer` reports the server for the call record. The request
   * runs where a plain call of the same caller would (`PassthroughHub.serve`): tracked in flight,
   * so what the upstream asks before the task exists reaches the client, and on a 2025 session's
   * own process for a server with `isolation: session` — the task lives there, so later task
   * requests go there too. A 2026-07-28 request has no session to keep such a process beyond
   * itself, so creating a task on such a server is refused (the door runs those tools as plain
   * calls when they allow it).
   */
  async create(
    params: CallToolRequest["params"],
    caller: Caller,
    options: CallContext,
    notes?: CallNotes,
  ): Promise<CreateTaskResult> {
    const target = this.#gateway.resolveTool(params.name, caller);
    if ("call" in target) {
      throw new GatewayError("UNSUPPORTED", `tool "${params.name}" does not run as a task`);
    }
    if (notes) notes.server = target.server;
    const upstream = this.#gateway.pool.get(target.server);
    if (!upstream) {
      throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`);
    }
    const isolated = upstream.config.isolation === "session";
    if (isolated && !options.session) {
      throw new GatewayError(
        "UNSUPPORTED",
        `tool "${params.name}" cannot run as a task here: server "${target.server}" runs one ` +
          `process per client session (isolation: session), and this request has no session ` +
          `to keep it`,
        { data: { server: target.server } },
      );
    }
    this.#sweep();
    const perToken = this.#gateway.config.gateway.maxTasksPerToken;
    const release = this.#shares.reserve(
      this.#byId,
      caller.tokenName,
      perToken,
      (id) => this.#forget(id),
    );
    const hub = this.#gateway.passthrough;
    let process: Upstream | undefined;
    const result = await hub.serve(upstream, caller, options, (serving) => {
      process = isolated ? serving : undefined;
      // The call's context goes on as it came: its `_meta` (the call's span, when tracing,
      // is the upstream's parent) is merged over the request's by the frame.
      return serving.request(
        "tools/call",
        { ...params, name: target.upstreamName },
        CreateTaskResultSchema,
        options,
      );
    }).finally(release) as CreateTaskResult;
    const id = this.#remember(target, process, result.task, caller, options.session);
    return { ...result, task: { ...result.task, taskId: id } };
  }

  /** `tasks/get`. */
  async get(taskId: string, caller: Caller, signal?: AbortSignal): Promise<Task> {
    const owned = this.#owned(taskId, caller);
    const task = await this.#upstream(owned).request(
      "tasks/get",
      { taskId: owned.upstreamId },
      GetTaskResultSchema,
      signal ? { signal } : {},
    ) as Task;
    if (TERMINAL.has(task.status)) owned.ended = true;
    return { ...task, taskId };
  }

  /**
   * `tasks/result`: waits for the upstream's result. The request counts as a call in flight
   * on its server, so an elicitation the task sends meanwhile reaches the waiting client.
   */
  async result(taskId: string, caller: Caller, options: CallContext): Promise<unknown> {
    const owned = this.#owned(taskId, caller);
    const hub = this.#gateway.passthrough;
    hub.track(owned.server, options);
    try {
      const payload = await this.#upstream(owned).request(
        "tasks/result",
        { taskId: owned.upstreamId },
        GetTaskPayloadResultSchema,
        { ...options, timeoutMs: 24 * 3_600_000 },
      );
      owned.ended = true; // tasks/result answers once the task is done
      // A task's result is a tool result: it passes the tool's server's filters the same way.
      const screened = await this.#gateway.filters.run(
        this.#gateway.config,
        filterContext("tool", owned.server, owned.tool, caller, options),
        payload as object,
      );
      return screened.value;
    } finally {
      hub.untrack(owned.server, options);
    }
  }

  /** `tasks/cancel`. */
  async cancel(taskId: string, caller: Caller, signal?: AbortSignal): Promise<Task> {
    const owned = this.#owned(taskId, caller);
    const task = await this.#upstream(owned).request(
      "tasks/cancel",
      { taskId: owned.upstreamId },
      CancelTaskResultSchema,
      signal ? { signal } : {},
    ) as Task;
    if (TERMINAL.has(task.status)) owned.ended = true;
    return { ...task, taskId };
  }

  /** `tasks/list`: this token's tasks, as their upstreams report them now. */
  async list(caller: Caller, signal?: AbortSignal): Promise<{ tasks: Task[] }> {
    this.#sweep();
    const mine = [...this.#byId].filter(([, o]) =>
      o.tokenName === caller.tokenName && o.profile === caller.profile
    );
    // Asked per process: a session's own process knows only its own tasks.
    const processes = new Set(mine.map(([, o]) => this.#processOf(o)));
    const tasks: Task[] = [];
    for (const upstream of processes) {
      if (!upstream?.client) continue;
      const listed = await upstream.request("tasks/list", {}, ListTasksResultSchema, {
        ...(signal ? { signal } : {}),
      }).catch(() => ({ tasks: [] as Task[] })) as { tasks: Task[] };
      const byUpstream = new Map(listed.tasks.map((t) => [t.taskId, t]));
      for (const [id, o] of mine) {
        const t = this.#processOf(o) === upstream ? byUpstream.get(o.upstreamId) : undefined;
        if (t) tasks.push({ ...t, taskId: id });
      }
    }
    return { tasks };
  }

  /**
   * Makes `follower` the one that answers the server requests the upstream sends about this task
   * (those carrying the 2025 related-task `_meta`), wherever its process is.
   */
  follow(taskId: string, caller: Caller, follower: CallOrigin): void {
    const owned = this.#owned(taskId, caller);
    owned.follower = follower;
    this.#gateway.passthrough.followTask(owned.server, owned.upstreamId, follower);
  }

  /** The task's follower (see {@link follow}), if this caller's token created the task. */
  followerOf(taskId: string, caller: Caller): CallOrigin | undefined {
    return this.#owned(taskId, caller).follower;
  }

  /**
   * Whether `session` made a task still running: its status notifications go to that session,
   * so the session is kept past the short idle time (a task itself outlives its session: it is
   * its token's, read from any of them).
   */
  runsFor(session: SessionLink): boolean {
    const now = Date.now();
    for (const o of this.#byId.values()) {
      if (o.session === session && !o.ended && o.expires >= now) return true;
    }
    return false;
  }

  /** An upstream's `notifications/tasks/status`, delivered to the session that made the task. */
  status(server: string, params: Task & Record<string, unknown>): void {
    const id = this.#byUpstream.get(`${server}\0${params.taskId}`);
    const owned = id ? this.#byId.get(id) : undefined;
    if (owned && TERMINAL.has(String(params.status))) owned.ended = true;
    if (!id || !owned?.session || owned.session.closed) return;
    void owned.session.server.notification({
      method: "notifications/tasks/status",
      params: { ...params, taskId: id },
    }).catch(() => {});
  }

  #remember(
    { server, name: tool }: { server: string; name: string },
    process: Upstream | undefined,
    task: Task,
    caller: Caller,
    session: SessionLink | undefined,
  ): string {
    // Room was reserved before the upstream was asked (TaskShares): nobody's task is evicted.
    const id = crypto.randomUUID();
    const ttl = typeof task.ttl === "number" ? task.ttl : DEFAULT_TTL_MS;
    this.#byId.set(id, {
      server,
      tool,
      process,
      upstreamId: task.taskId,
      tokenName: caller.tokenName,
      profile: caller.profile,
      session,
      expires: Date.now() + ttl + 60_000,
      ended: false,
    });
    this.#byUpstream.set(`${server}\0${task.taskId}`, id);
    return id;
  }

  /** The task `id` names, if this caller's token created it; otherwise "not found". */
  #owned(id: string, caller: Caller): Owned {
    const owned = this.#byId.get(id);
    if (
      !owned || owned.tokenName !== caller.tokenName || owned.profile !== caller.profile ||
      owned.expires < Date.now()
    ) {
      throw new GatewayError("INVALID_ARGUMENTS", `unknown task "${String(id).slice(0, 80)}"`);
    }
    return owned;
  }

  /** The process a task lives on: its session's own, else the server's shared one now. */
  #processOf(owned: Owned): Upstream | undefined {
    return owned.process ?? this.#gateway.pool.get(owned.server);
  }

  #upstream(owned: Owned): Upstream {
    const upstream = this.#processOf(owned);
    if (!upstream) {
      throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${owned.server}" is gone`);
    }
    return upstream;
  }

  #forget(id: string): void {
    const owned = this.#byId.get(id);
    if (!owned) return;
    this.#byId.delete(id);
    this.#byUpstream.delete(`${owned.server}\0${owned.upstreamId}`);
    if (owned.follower) this.#gateway.passthrough.unfollowTask(owned.server, owned.upstreamId);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, o] of this.#byId) if (o.expires < now) this.#forget(id);
  }
}

/** Relays an upstream's task status notifications to the sessions that own the tasks. */
export function relayTaskStatus(
  router: TaskRouter,
  upstream: Upstream,
  client: UpstreamClient,
): void {
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    // as never: 1.x params: the router's Task, looser
    router.status(upstream.name, n.params as never);
  });
}
