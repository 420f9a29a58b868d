/**
 * Tasks on a 2026-07-28 upstream (the tasks extension), where they differ from a 2025 one: it
 * pushes no task status, has no `tasks/list`, and asks for input inside the task's own results
 * (`inputRequests`) instead of by server requests of its own. What the task router
 * (./tasks.ts) does the same for both eras stays there.
 */
import type { Task } from "../../shared/protocol.ts";
import { type InputRelay, resultSchemaOf, type Upstream } from "../../upstream/mod.ts";
import { childContext, enterCall } from "../call-context.ts";
import type { Gateway } from "../gateway.ts";
import type { CallContext, Caller } from "../types.ts";
import type { OwnedTask } from "./task-table.ts";

/**
 * A 2026-07-28 upstream pushes no task status a 2025 session could be given, and its
 * connection tells each change it reads (`upstream/modern/tasks.ts`): so a session's task
 * there is read until it ends, at the task's own poll interval, and its changes reach the
 * session as `notifications/tasks/status` (`TaskRouter.status`). What the task asks meanwhile
 * waits for the session's own `tasks/result`, which relays it. Forgetting the task stops it.
 */
export function watchTask(owned: OwnedTask, upstream: Upstream, caller: Caller): void {
  const watch = owned.watch = new AbortController();
  upstream.request(
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

/**
 * The tasks of `mine` that live on `upstream`, read one by one: for a server without
 * `tasks/list` (the tasks extension has none). A task its server no longer knows is left out,
 * as a list would.
 */
export async function getEach(
  upstream: Upstream,
  mine: readonly OwnedTask[],
  caller: Caller,
  signal: AbortSignal | undefined,
): Promise<{ tasks: Task[] }> {
  const tasks: Task[] = [];
  for (const o of mine) {
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
 * Who answers what a 2026-07-28 upstream's task asks while `tasks/result` waits on it (the
 * extension's `inputRequests`): the task's follower when it has one (a 2026-07-28 client's
 * task), else the client waiting. A 2025 upstream's task asks by requests of its own, routed
 * as they arrive: none here.
 */
export function taskInputRelay(
  gateway: Gateway,
  owned: OwnedTask,
  upstream: Upstream,
  options: CallContext,
): InputRelay | undefined {
  if (upstream.era !== "modern") return undefined;
  const follower = owned.follower;
  if (follower) return (method, params) => follower.request(method, params);
  return gateway.passthrough.inputRelay(
    upstream,
    gateway.pool.get(owned.server) ?? upstream,
    options,
  );
}
