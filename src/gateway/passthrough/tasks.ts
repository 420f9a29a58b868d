/**
 * Tasks pass-through: a `tools/call` with a `task` parameter creates the task on the upstream
 * that owns the tool, and `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` go to that
 * upstream — to the very process or connection the task was created on when the server has more
 * than one (a session's own process, a user's own connection of a per-user server). Clients see an opaque random task id per upstream task, bound to the token that
 * created it, so ids cannot collide across servers nor be guessed or used by another token.
 * Each token holds at most its share of the task table (./task-share.ts): past it, its next
 * creation is refused, and no other token's task is evicted. Status notifications go to the
 * session that created the task. A task may have a follower (a
 * 2026-07-28 client's task): the server requests the upstream sends about it go there.
 */
import {
  type CallToolRequest,
  type CreateTaskResult,
  type GetTaskPayloadResult,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../../shared/errors.ts";
import {
  listenTo,
  resultSchemaOf,
  TASK_CREATED_SCHEMA,
  type Upstream,
  type UpstreamClient,
} from "../../upstream/mod.ts";
import type { Gateway } from "../gateway.ts";
import type { CallNotes } from "../call-records.ts";
import { type FilterContext, filterContext, screenRpcError, screenTask } from "../filters/mod.ts";
import type { CallContext, Caller, ClientChannel, RequestAnswerer } from "../types.ts";
import type { InputRelay } from "../../upstream/mod.ts";
import { TaskShares } from "./task-share.ts";
import { childContext, enterCall } from "../call-context.ts";

interface Owned {
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
  /** Stops the watch of a 2026-07-28 upstream's task for its session (see `#watch`). */
  watch?: AbortController;
}

/** Longest a task is remembered without a TTL of its own. */
export const DEFAULT_TTL_MS = 60 * 60_000;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** Routes task requests to the upstream that owns each task. */
export class TaskRouter {
  #gateway: Gateway;
  #byId = new Map<string, Owned>();
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
    options: CallContext,
    notes?: CallNotes,
  ): Promise<CreateTaskResult> {
    const caller = options.caller;
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
    if (isolated && !options.client?.lasting) {
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
    const ctx = filterContext("tool", target.server, target.name, options);
    let creator = upstream;
    const result = await hub.serve(upstream, options, (serving) => {
      creator = serving;
      // The call's context goes on as it came: its `_meta` (the call's span, when tracing,
      // is the upstream's parent) is merged over the request's by the frame.
      // A 2026-07-28 upstream's input rounds before the task exists belong to this call.
      return serving.request(
        "tools/call",
        { ...params, name: target.upstreamName },
        TASK_CREATED_SCHEMA,
        options,
        hub.inputRelay(serving, upstream, options),
      );
    }).catch((err) => {
      throw this.#screenError(ctx, err);
    }).finally(release) as CreateTaskResult;
    const process = creator === upstream ? undefined : creator;
    const client = options.client?.lasting ? options.client : undefined;
    const id = this.#remember(target, { process, creator }, result.task, caller, client);
    if (client && creator.era === "modern") this.#watch(id, caller);
    return { ...result, task: { ...this.#screenTask(ctx, result.task), taskId: id } };
  }

  /** `tasks/get`. */
  async get(taskId: string, caller: Caller, signal?: AbortSignal): Promise<Task> {
    return await this.#ask("tasks/get", taskId, caller, signal);
  }

  /** `tasks/get` or `tasks/cancel`: the task as its upstream reports it, screened. */
  async #ask(
    method: "tasks/get" | "tasks/cancel",
    taskId: string,
    caller: Caller,
    signal: AbortSignal | undefined,
  ): Promise<Task> {
    const owned = this.#owned(taskId, caller);
    const ctx = ownedContext(owned, caller);
    const task = await this.#upstream(owned).request(
      method,
      { taskId: owned.upstreamId },
      resultSchemaOf(method),
      enterCall(caller, { signal }),
    ).catch((err) => {
      throw this.#screenError(ctx, err);
    }) as Task;
    if (TERMINAL.has(task.status)) owned.ended = true;
    return { ...this.#screenTask(ctx, task), taskId };
  }

  /** A task's `statusMessage` as its server's filters leave it. */
  #screenTask<T extends { statusMessage?: string | undefined }>(
    ctx: FilterContext,
    task: T,
  ): T {
    return screenTask(this.#gateway.filters, this.#gateway.config, ctx, task);
  }

  /** An upstream's JSON-RPC error as its server's filters leave it. */
  #screenError(ctx: FilterContext, err: unknown): unknown {
    return screenRpcError(this.#gateway.filters, this.#gateway.config, ctx, err);
  }

  /**
   * `tasks/result`: waits for the upstream's result. The request counts as a call in flight
   * on its server, so an elicitation the task sends meanwhile reaches the waiting client.
   */
  async result(taskId: string, options: CallContext): Promise<GetTaskPayloadResult> {
    const owned = this.#owned(taskId, options.caller);
    const hub = this.#gateway.passthrough;
    const outputSchema = this.#gateway.catalog.toolsByName.get(owned.tool)?.tool.outputSchema;
    const ctx = {
      ...filterContext("tool", owned.server, owned.tool, options),
      ...(outputSchema ? { outputSchema } : {}),
    };
    hub.calls.track(owned.server, options);
    try {
      const upstream = this.#upstream(owned);
      const payload = await upstream.request(
        "tasks/result",
        { taskId: owned.upstreamId },
        resultSchemaOf("tasks/result"),
        childContext(options, { timeoutMs: 24 * 3_600_000 }),
        this.#inputRelay(owned, upstream, options),
      ).catch((err) => {
        throw this.#screenError(ctx, err);
      }) as GetTaskPayloadResult;
      owned.ended = true; // tasks/result answers once the task is done
      // A task's result is a tool result: it passes the tool's server's filters the same way.
      const screened = await this.#gateway.filters.run(this.#gateway.config, ctx, payload);
      return screened.value;
    } finally {
      hub.calls.untrack(owned.server, options);
    }
  }

  /**
   * Who answers what a 2026-07-28 upstream's task asks while `tasks/result` waits on it (the
   * extension's `inputRequests`): the task's follower when it has one (a 2026-07-28 client's
   * task), else the client waiting. A 2025 upstream's task asks by requests of its own, routed
   * as they arrive.
   */
  #inputRelay(owned: Owned, upstream: Upstream, options: CallContext): InputRelay | undefined {
    if (upstream.era !== "modern") return undefined;
    const follower = owned.follower;
    if (follower) return (method, params) => follower.request(method, params);
    return this.#gateway.passthrough.inputRelay(
      upstream,
      this.#gateway.pool.get(owned.server) ?? upstream,
      options,
    );
  }

  /** `tasks/cancel`. */
  async cancel(taskId: string, caller: Caller, signal?: AbortSignal): Promise<Task> {
    return await this.#ask("tasks/cancel", taskId, caller, signal);
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
      const listed = upstream.client.getServerCapabilities()?.tasks?.list
        ? await upstream.request(
          "tasks/list",
          {},
          resultSchemaOf("tasks/list"),
          enterCall(caller, { signal }),
        ).catch(() => ({ tasks: [] as Task[] })) as { tasks: Task[] }
        : await this.#getEach(upstream, mine, caller, signal);
      const byUpstream = new Map(listed.tasks.map((t) => [t.taskId, t]));
      for (const [id, o] of mine) {
        const t = this.#processOf(o) === upstream ? byUpstream.get(o.upstreamId) : undefined;
        if (t) tasks.push({ ...this.#screenTask(ownedContext(o, caller), t), taskId: id });
      }
    }
    return { tasks };
  }

  /**
   * The tasks of `mine` on `upstream`, read one by one: for a server without `tasks/list` (the
   * tasks extension has none). A task its server no longer knows is left out, as a list would.
   */
  async #getEach(
    upstream: Upstream,
    mine: [string, Owned][],
    caller: Caller,
    signal: AbortSignal | undefined,
  ): Promise<{ tasks: Task[] }> {
    const tasks: Task[] = [];
    for (const [, o] of mine) {
      if (this.#processOf(o) !== upstream) continue;
      const task = await upstream.request(
        "tasks/get",
        { taskId: o.upstreamId },
        resultSchemaOf("tasks/get"),
        enterCall(caller, { signal }),
      ).catch(() => undefined) as Task | undefined;
      if (task) tasks.push(task);
    }
    return { tasks };
  }

  /**
   * Makes `follower` the one that answers the server requests the upstream sends about this task
   * (those carrying the 2025 related-task `_meta`), wherever its process is.
   */
  follow(taskId: string, caller: Caller, follower: RequestAnswerer): void {
    const owned = this.#owned(taskId, caller);
    owned.follower = follower;
    this.#gateway.passthrough.calls.followTask(owned.creator, owned.upstreamId, follower);
  }

  /** The task's follower (see {@link follow}), if this caller's token created the task. */
  followerOf(taskId: string, caller: Caller): RequestAnswerer | undefined {
    return this.#owned(taskId, caller).follower;
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

  /**
   * `notifications/tasks/status` from process `from`, delivered to the session that made the
   * task there.
   */
  status(from: Upstream, params: Task & Record<string, unknown>): void {
    const id = this.#byUpstream.get(from)?.get(params.taskId);
    const owned = id ? this.#byId.get(id) : undefined;
    if (owned && TERMINAL.has(String(params.status))) owned.ended = true;
    if (!id || !owned?.client || owned.client.closed) return;
    const screened = this.#screenTask(ownedContext(owned), params);
    owned.client.notify("notifications/tasks/status", { ...screened, taskId: id });
  }

  #remember(
    { server, name: tool }: { server: string; name: string },
    { process, creator }: { process: Upstream | undefined; creator: Upstream },
    task: Task,
    caller: Caller,
    client: ClientChannel | undefined,
  ): string {
    // Room was reserved before the upstream was asked (TaskShares): nobody's task is evicted.
    const id = crypto.randomUUID();
    const ttl = typeof task.ttl === "number" ? task.ttl : DEFAULT_TTL_MS;
    this.#byId.set(id, {
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
    });
    let ids = this.#byUpstream.get(creator);
    if (!ids) this.#byUpstream.set(creator, ids = new Map());
    ids.set(task.taskId, id);
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

  /**
   * A 2026-07-28 upstream pushes no task status a 2025 session could be given, and its
   * connection tells each change it reads (`upstream/modern/tasks.ts`): so a session's task
   * there is read until it ends, at the task's own poll interval, and its changes reach the
   * session as `notifications/tasks/status` (`status` below). What the task asks meanwhile waits
   * for the session's own `tasks/result`, which relays it.
   */
  #watch(id: string, caller: Caller): void {
    const owned = this.#byId.get(id)!;
    const watch = owned.watch = new AbortController();
    this.#upstream(owned).request(
      "tasks/result",
      { taskId: owned.upstreamId },
      undefined,
      childContext(enterCall(caller, { signal: watch.signal }), {
        timeoutMs: Math.max(1, owned.expires - Date.now()),
      }),
    ).catch(() => {/* the session reads how it ended with tasks/result */}).finally(() => {
      if (owned.watch === watch) delete owned.watch;
    });
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

/** What the filters know of a task: its server and tool, and who asks. */
function ownedContext(owned: Owned, caller?: Caller): FilterContext {
  return {
    kind: "tool",
    server: owned.server,
    name: owned.tool,
    ...(caller ? { caller } : {}),
    depth: 0,
  };
}

/** Relays an upstream's task status notifications to the sessions that own the tasks. */
export function relayTaskStatus(
  router: TaskRouter,
  upstream: Upstream,
  client: UpstreamClient,
): void {
  listenTo(client, { taskStatus: (params) => router.status(upstream, params) });
}
