/**
 * The shapes of the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the
 * 2026-07-28 wire, made from the 2025 task an upstream reports: a flat `CreateTaskResult`
 * (`resultType: "task"` and the task's fields at the top level, no nested `task`), and the
 * `DetailedTask` of `tasks/get`, which inlines the result of a completed task, the JSON-RPC
 * error of a failed one, or the requests an `input_required` one waits on. Durations are integer
 * milliseconds named `ttlMs` / `pollIntervalMs` (the task's own fields: `shared/tasks-extension.ts`,
 * which the client of a 2026-07-28 upstream reads them back with); the 2025 `ttl`, `pollInterval`,
 * nested `task` and related-task `_meta` never reach the client.
 */
import type { Task } from "@modelcontextprotocol/sdk/types.js";
import { TASK_TTL_MS } from "../../gateway/passthrough/mod.ts";
import { toExtensionTask } from "../../shared/tasks-extension.ts";
import type { Outcome } from "./tasks-follower.ts";

export { isTerminal, TASKS_EXTENSION } from "../../shared/tasks-extension.ts";

/** The fields every task shape carries. */
export function taskFields(task: Task): Record<string, unknown> {
  // A task without its own TTL is kept by the gateway for its default lifetime: say so.
  return toExtensionTask(task, TASK_TTL_MS);
}

/** The answer to a `tools/call` that created a task. */
export function createTaskResult(task: Task): Record<string, unknown> {
  return { resultType: "task", ...taskFields(task) };
}

/**
 * The `DetailedTask` of a task that ended. A result with `content` is a tool's answer, so the
 * task completed, even when the tool reported an error (`isError`) and the upstream called the
 * task failed; a protocol error, or a failure with no result, is `failed` with its error.
 */
export function endedTask(task: Task, outcome: Outcome | undefined): Record<string, unknown> {
  const fields = taskFields(task);
  if (task.status === "cancelled") return fields;
  if (outcome && "result" in outcome && Array.isArray(outcome.result.content)) {
    return { ...fields, status: "completed", result: outcome.result };
  }
  const error = outcome && "error" in outcome ? outcome.error : {
    code: -32603,
    message: task.statusMessage ?? `the task ${task.status} upstream without a tool result`,
  };
  return { ...fields, status: "failed", error };
}
