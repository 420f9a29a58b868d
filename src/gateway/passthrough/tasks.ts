/**
 * Tasks pass-through: a `tools/call` with a `task` parameter creates the task on the upstream
 * that owns the tool, and `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` go to that
 * upstream — to the very process or connection the task was created on when the server has more
 * than one (a session's own process, a user's own connection of a per-user server). Which task
 * is whose is the task table's (./task-table.ts); what differs on a 2026-07-28 upstream is in
 * ./modern-tasks.ts. Status notifications go to the session that created the task. A task may
 * have a follower (a 2026-07-28 client's task): the server requests the upstream sends about it
 * go there.
 */
import type { CallToolParams, CreateTaskResult, Task, TaskPayload } from "../../shared/protocol.ts";
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
import { childContext, enterCall } from "../call-context.ts";
import { getEach, taskInputRelay, watchTask } from "./modern-tasks.ts";
import { type OwnedTask, TaskTable } from "./task-table.ts";

export { DEFAULT_TTL_MS } from "./task-table.ts";

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** Routes task requests to the upstream that owns each task. */
export class TaskRouter {
  #gateway: Gateway;
  #table: TaskTable;

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
    this.#table = new TaskTable(gateway);
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
    params: CallToolParams,
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
    const release = this.#table.reserve(caller.tokenName);
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
    }, undefined).catch((err) => {
      throw this.#screenError(ctx, err);
    }).finally(release) as CreateTaskResult;
    const process = creator === upstream ? undefined : creator;
    const client = options.client?.lasting ? options.client : undefined;
    const { id, owned } = this.#table.remember(
      target,
      { process, creator },
      result.task,
      caller,
      client,
    );
    if (client && creator.era === "modern") watchTask(owned, this.#table.upstreamOf(owned), caller);
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
    const owned = this.#table.owned(taskId, caller);
    const ctx = ownedContext(owned, caller);
    const task = await this.#table.upstreamOf(owned).request(
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
  async result(taskId: string, options: CallContext): Promise<TaskPayload> {
    const owned = this.#table.owned(taskId, options.caller);
    const hub = this.#gateway.passthrough;
    const outputSchema = this.#gateway.catalog.toolsByName.get(owned.tool)?.tool.outputSchema;
    const ctx = {
      ...filterContext("tool", owned.server, owned.tool, options),
      ...(outputSchema ? { outputSchema } : {}),
    };
    hub.calls.track(owned.server, options);
    try {
      const upstream = this.#table.upstreamOf(owned);
      const payload = await upstream.request(
        "tasks/result",
        { taskId: owned.upstreamId },
        resultSchemaOf("tasks/result"),
        childContext(options, { timeoutMs: 24 * 3_600_000 }),
        taskInputRelay(this.#gateway, owned, upstream, options),
      ).catch((err) => {
        throw this.#screenError(ctx, err);
      }) as TaskPayload;
      owned.ended = true; // tasks/result answers once the task is done
      // A task's result is a tool result: it passes the tool's server's filters the same way.
      const screened = await this.#gateway.filters.run(this.#gateway.config, ctx, payload);
      return screened.value;
    } finally {
      hub.calls.untrack(owned.server, options);
    }
  }

  /** `tasks/cancel`. */
  async cancel(taskId: string, caller: Caller, signal?: AbortSignal): Promise<Task> {
    return await this.#ask("tasks/cancel", taskId, caller, signal);
  }

  /** `tasks/list`: this token's tasks, as their upstreams report them now. */
  async list(caller: Caller, signal?: AbortSignal): Promise<{ tasks: Task[] }> {
    const mine = this.#table.mine(caller);
    // Asked per process: a session's own process knows only its own tasks.
    const processes = new Set(mine.map(([, o]) => this.#table.processOf(o)));
    const livingOn = (upstream: Upstream) =>
      mine.filter(([, o]) => this.#table.processOf(o) === upstream).map(([, o]) => o);
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
        : await getEach(upstream, livingOn(upstream), caller, signal);
      const byUpstream = new Map(listed.tasks.map((t) => [t.taskId, t]));
      for (const [id, o] of mine) {
        const t = this.#table.processOf(o) === upstream ? byUpstream.get(o.upstreamId) : undefined;
        if (t) tasks.push({ ...this.#screenTask(ownedContext(o, caller), t), taskId: id });
      }
    }
    return { tasks };
  }

  /**
   * Makes `follower` the one that answers the server requests the upstream sends about this task
   * (those carrying the 2025 related-task `_meta`), wherever its process is.
   */
  follow(taskId: string, caller: Caller, follower: RequestAnswerer): void {
    const owned = this.#table.owned(taskId, caller);
    owned.follower = follower;
    this.#gateway.passthrough.calls.followTask(owned.creator, owned.upstreamId, follower);
  }

  /** The task's follower (see {@link follow}), if this caller's token created the task. */
  followerOf(taskId: string, caller: Caller): RequestAnswerer | undefined {
    return this.#table.owned(taskId, caller).follower;
  }

  /**
   * Whether `session` made a task still running: its status notifications go to that session,
   * so the session is kept past the short idle time (a task itself outlives its session: it is
   * its token's, read from any of them).
   */
  runsFor(session: ClientChannel): boolean {
    return this.#table.runsFor(session);
  }

  /**
   * `notifications/tasks/status` from process `from`, delivered to the session that made the
   * task there.
   */
  status(from: Upstream, params: Task & Record<string, unknown>): void {
    const [id, owned] = this.#table.fromUpstream(from, params.taskId) ?? [];
    if (owned && TERMINAL.has(String(params.status))) owned.ended = true;
    if (!id || !owned?.client || owned.client.closed) return;
    const screened = this.#screenTask(ownedContext(owned), params);
    owned.client.notify("notifications/tasks/status", { ...screened, taskId: id });
  }
}

/** What the filters know of a task: its server and tool, and who asks. */
function ownedContext(owned: OwnedTask, caller?: Caller): FilterContext {
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
