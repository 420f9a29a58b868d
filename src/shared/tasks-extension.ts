/**
 * The task of the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the 2026-07-28
 * wire, and its mapping to and from the 2025 task the gateway routes internally. One place for
 * both directions: the 2026-07-28 door writes these shapes for its clients, and the client of a
 * 2026-07-28 upstream reads them back. On the wire a task is flat (`taskId`, `status`,
 * `createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`, `statusMessage`): durations are
 * integer milliseconds named `ttlMs` / `pollIntervalMs`, where 2025 says `ttl` / `pollInterval`.
 */
import type { Task } from "./protocol.ts";

/** The extension's id, as negotiated in `capabilities.extensions`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The statuses after which a task never changes. */
export function isTerminal(status: string): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/**
 * The wire fields of a 2025 task; `defaultTtlMs` is said for a task without a TTL of its own
 * (how long the gateway keeps it).
 */
export function toExtensionTask(task: Task, defaultTtlMs: number): Record<string, unknown> {
  const poll = typeof task.pollInterval === "number" ? Math.round(task.pollInterval) : 0;
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: typeof task.ttl === "number" && task.ttl > 0 ? Math.round(task.ttl) : defaultTtlMs,
    ...(poll > 0 ? { pollIntervalMs: poll } : {}),
  };
}

/**
 * The 2025 task a wire task (a `CreateTaskResult` or a `DetailedTask`) stands for; what the
 * wire task inlines (`result`, `error`, `inputRequests`) is left out. A status the 2025
 * revision does not have is reported as `working`. `ttlMs: null` (unlimited) is `ttl: null`.
 */
export function fromExtensionTask(wire: Record<string, unknown>): Task {
  const now = new Date().toISOString();
  const status = typeof wire.status === "string" && STATUSES.has(wire.status)
    ? wire.status as Task["status"]
    : "working";
  const ttl = wire.ttlMs;
  const poll = wire.pollIntervalMs;
  return {
    taskId: String(wire.taskId),
    status,
    ...(typeof wire.statusMessage === "string" ? { statusMessage: wire.statusMessage } : {}),
    createdAt: typeof wire.createdAt === "string" ? wire.createdAt : now,
    lastUpdatedAt: typeof wire.lastUpdatedAt === "string" ? wire.lastUpdatedAt : now,
    ttl: typeof ttl === "number" ? ttl : null,
    ...(typeof poll === "number" ? { pollInterval: poll } : {}),
  };
}

const STATUSES = new Set(["working", "input_required", "completed", "failed", "cancelled"]);
