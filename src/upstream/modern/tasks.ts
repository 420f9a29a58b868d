/**
 * The gateway as a client of the tasks extension (`io.modelcontextprotocol/tasks`) on a
 * 2026-07-28 upstream that offers it. The core routes tasks in their 2025 form (a task-augmented
 * `tools/call`, `tasks/get`, `tasks/result`, `tasks/cancel`: `gateway/passthrough/tasks.ts`), so
 * this connection answers those requests with the extension's own:
 *
 * - a `tools/call` carrying `task` goes out without it, declaring the extension in its envelope
 *   (the server decides whether to make a task); a `CreateTaskResult` (`resultType: "task"`,
 *   brought through the SDK client by `lenient.ts`) becomes the 2025 `{ task }`; a plain result
 *   — the server ran the tool at once — is kept here as a completed task of this connection;
 * - `tasks/get` and `tasks/cancel` are the extension's (its cancel answers an empty ack: the
 *   task is read again after it);
 * - `tasks/result`, which the extension does not have, polls `tasks/get` at the task's own
 *   interval until it ends, and answers the inlined result (or throws the inlined error); while
 *   the task waits on its client (`input_required`), each of its `inputRequests` goes to the
 *   client through the request's input relay and the answers return with `tasks/update`;
 * - a 2026-07-28 tool declares no task support (the server decides per call), so each tool of
 *   such a server is listed as one that may run as a task (`execution.taskSupport: optional`);
 * - `tasks/list` does not exist in the extension: the connection's capabilities say so (no
 *   `tasks.list`), and the router reads such a server's tasks one by one;
 * - each change of a task's status seen here (any `tasks/get`, the polls of `tasks/result`) is
 *   told as the 2025 `notifications/tasks/status` (`onStatus`), for the session that made the
 *   task.
 */
import type { CreateTaskResult, Task } from "@modelcontextprotocol/sdk/types.js";
import { fromExtensionTask, isTerminal } from "../../shared/tasks-extension.ts";
import { UpstreamRpcError } from "../call-errors.ts";

/**
 * The `_meta` key under which `lenient.ts` hands on a `CreateTaskResult`: the SDK v2 client
 * refuses result types it does not know, and the extension's `task` is one.
 */
export const CREATED_TASK_META = "mcp-gateway/createdTask";

/** Sends one request declaring the extension; rejects with the leg's named errors. */
export type AskUpstream = (
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<unknown>;

/**
 * Hands one of the task's input requests, under its key, to the client of the request that
 * waits on the task; absent when no client answers for it.
 */
export type RelayInput = (
  key: string,
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
) => Promise<unknown>;

/** Told each change of a task's status this connection sees, as the 2025 notification says it. */
export type OnTaskStatus = (task: Task) => void;

/** Tasks the server ran at once, kept so the 2025 requests about them can be answered. */
const KEPT_DONE = 1_000;
/** Running tasks whose last status is remembered (the oldest is forgotten past it). */
const KEPT_SEEN = 10_000;
/** Polling bounds when the task names no interval of its own (or an unreasonable one). */
const POLL_MS = { least: 50, most: 5_000, fallback: 500 };

/** The 2025 task requests of one modern connection, answered with the extension's. */
export class ExtensionTasks {
  readonly #server: string;
  readonly #offered: () => boolean;
  readonly #done = new Map<string, { task: Task; result: Record<string, unknown> }>();
  readonly #onStatus: OnTaskStatus | undefined;
  /** The last status seen of each task not ended yet, to tell changes only. */
  readonly #seen = new Map<string, string>();

  /**
   * `offered`: whether the server offers the extension (read on each request); `onStatus`:
   * told each status change seen (the extension pushes none a 2025 client could be given).
   */
  constructor(server: string, offered: () => boolean, onStatus?: OnTaskStatus) {
    this.#server = server;
    this.#offered = offered;
    this.#onStatus = onStatus;
  }

  /** Whether this is a task-augmented `tools/call` to carry as the extension's. */
  creates(method: string, params: Record<string, unknown> | undefined): boolean {
    return method === "tools/call" && params?.task !== undefined && this.#offered();
  }

  /** Whether `method` is a 2025 task request answered here. */
  handles(method: string): boolean {
    return METHODS.has(method) && this.#offered();
  }

  /** The answer of a task-creating `tools/call` (see the module header), in the 2025 shape. */
  created(result: unknown): CreateTaskResult {
    const { _meta, ...rest } = (result ?? {}) as Record<string, unknown>;
    const { [CREATED_TASK_META]: wire, ...meta } = (_meta ?? {}) as Record<string, unknown>;
    const kept = Object.keys(meta).length > 0 ? { _meta: meta } : {};
    if (wire && typeof wire === "object") {
      // What lenient.ts put around the task is not the server's: only its `_meta` is kept.
      const task = fromExtensionTask(wire as Record<string, unknown>);
      this.#saw(task);
      return { task, ...kept };
    }
    const now = new Date().toISOString();
    const task: Task = {
      taskId: crypto.randomUUID(),
      status: "completed",
      createdAt: now,
      lastUpdatedAt: now,
      ttl: null,
    };
    if (this.#done.size >= KEPT_DONE) this.#done.delete(this.#done.keys().next().value!);
    this.#done.set(task.taskId, { task, result: { ...rest, ...kept } });
    return { task };
  }

  /**
   * A `tools/list` page as 2025 would say it: a 2026-07-28 tool declares no
   * `execution.taskSupport`, since with the extension the server decides at each call whether
   * it makes a task; so every tool of a server offering the extension is one that may run as a
   * task (`optional`), unless it says otherwise.
   */
  listed(method: string, result: unknown): unknown {
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (method !== "tools/list" || !Array.isArray(tools) || !this.#offered()) return result;
    return {
      ...(result as Record<string, unknown>),
      tools: tools.map((tool: Record<string, unknown>) => {
        const execution = tool.execution as { taskSupport?: unknown } | undefined;
        if (execution?.taskSupport !== undefined) return tool;
        return { ...tool, execution: { ...execution, taskSupport: "optional" } };
      }),
    };
  }

  /** Answers `tasks/get`, `tasks/result`, `tasks/cancel` or `tasks/list`. */
  async answer(
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    ask: AskUpstream,
    relay?: RelayInput,
  ): Promise<unknown> {
    if (method === "tasks/list") {
      throw this.#error(-32601, "the tasks extension has no tasks/list");
    }
    const taskId = String(params?.taskId ?? "");
    const done = this.#done.get(taskId);
    switch (method) {
      case "tasks/get":
        return done?.task ?? fromExtensionTask(await this.#detail(ask, taskId, signal));
      case "tasks/cancel":
        if (done) throw this.#error(-32602, "the task already completed");
        await ask("tasks/cancel", { taskId }, signal);
        return fromExtensionTask(await this.#detail(ask, taskId, signal));
      default:
        return done?.result ?? await this.#result(ask, taskId, signal, relay);
    }
  }

  /** `tasks/result`: waits for the task to end (bounded by the request's own deadline). */
  async #result(
    ask: AskUpstream,
    taskId: string,
    signal: AbortSignal,
    relay: RelayInput | undefined,
  ): Promise<unknown> {
    // Each question is relayed once, and the polls go on while the client answers: a task may
    // ask more while one waits, and its client sees everything it waits on at once.
    const asking = new Set<string>();
    let refused: unknown;
    while (!signal.aborted && refused === undefined) {
      const detail = await this.#detail(ask, taskId, signal);
      const status = String(detail.status);
      if (status === "completed") return detail.result ?? {};
      if (status === "failed") {
        const error = detail.error as { code?: unknown; message?: unknown; data?: unknown };
        throw new UpstreamRpcError(this.#server, {
          code: typeof error?.code === "number" ? error.code : -32603,
          message: typeof error?.message === "string" ? error.message : "the task failed",
          ...(error?.data === undefined ? {} : { data: error.data }),
        });
      }
      if (status === "cancelled") throw this.#error(-32603, "the task was cancelled");
      const requests = detail.inputRequests as
        | Record<string, { method: string; params?: Record<string, unknown> }>
        | undefined;
      if (status === "input_required" && relay && requests) {
        for (const [key, req] of Object.entries(requests)) {
          if (asking.has(key)) continue;
          asking.add(key);
          relay(key, req.method, req.params, signal)
            .then((answer) =>
              ask("tasks/update", { taskId, inputResponses: { [key]: answer } }, signal)
            )
            // Answered upstream: the key may be asked again later.
            .then(() => asking.delete(key), (err: unknown) => (refused ??= err));
        }
      }
      await pause(pollOf(detail), signal);
    }
    if (refused !== undefined) throw refused;
    throw this.#error(-32603, "the request ended before the task did");
  }

  async #detail(
    ask: AskUpstream,
    taskId: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const detail = await ask("tasks/get", { taskId }, signal) as Record<string, unknown>;
    if (typeof detail?.status !== "string") {
      throw this.#error(-32603, "tasks/get answered without a status");
    }
    const task = fromExtensionTask(detail);
    if (this.#saw(task)) this.#onStatus?.(task);
    return detail;
  }

  /** Records `task`'s status; true when it changed (a task seen first is not a change). */
  #saw(task: Task): boolean {
    const before = this.#seen.get(task.taskId);
    if (isTerminal(task.status)) this.#seen.delete(task.taskId);
    else {
      if (!this.#seen.has(task.taskId) && this.#seen.size >= KEPT_SEEN) {
        this.#seen.delete(this.#seen.keys().next().value!);
      }
      this.#seen.set(task.taskId, task.status);
    }
    return before !== undefined && before !== task.status;
  }

  #error(code: number, message: string): UpstreamRpcError {
    return new UpstreamRpcError(this.#server, { code, message });
  }
}

const METHODS = new Set(["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"]);

function pollOf(detail: Record<string, unknown>): number {
  const ms = detail.pollIntervalMs;
  if (typeof ms !== "number" || !Number.isFinite(ms)) return POLL_MS.fallback;
  return Math.min(POLL_MS.most, Math.max(POLL_MS.least, ms));
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}
