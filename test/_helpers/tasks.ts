/**
 * The attacker's view of a task: a client other than its owner (another token, profile or
 * endpoint) can neither read nor cancel it, and does not see it listed.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CancelTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** Asserts `client` gets "unknown task" for `taskId` on get and cancel and does not list it. */
export async function assertTaskOutOfReach(client: Client, taskId: string): Promise<void> {
  await assert.rejects(
    client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema),
    /unknown task/,
  );
  await assert.rejects(
    client.request({ method: "tasks/cancel", params: { taskId } }, CancelTaskResultSchema),
    /unknown task/,
  );
  const listed = await client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema);
  assert.ok(!listed.tasks.some((t) => t.taskId === taskId), "the task is listed to another client");
}
