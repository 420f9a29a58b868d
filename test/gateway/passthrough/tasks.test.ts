/**
 * Tasks through the gateway: a tool the everything server marks `taskSupport: "required"` runs
 * as a task created on that upstream, polled and read through the gateway under an opaque id,
 * and cancelled; another token cannot see or touch the task.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { startTestGateway, type TestGateway, textOf } from "../../_helpers/gateway.ts";
import { assertTaskOutOfReach } from "../../_helpers/tasks.ts";
import { EVERYTHING, untilTool } from "./_helpers.ts";
import { authedHttpClient } from "../../security/_http.ts";

const TOKEN_A = "tasks-token-a-0123456789";
const TOKEN_B = "tasks-token-b-0123456789";
const TOOL = "everything__simulate-research-query";

describe("tasks through the gateway", () => {
  let gw: TestGateway;
  let a: Client;
  let b: Client;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth:
    tokens:
      - { name: a, token: ${TOKEN_A} }
      - { name: b, token: ${TOKEN_B} }
servers:
  everything: ${EVERYTHING}
`);
    a = await authedHttpClient(gw.url, TOKEN_A);
    await untilTool(a, TOOL);
    b = await authedHttpClient(gw.url, TOKEN_B);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gw?.stop();
  });

  const create = (client: Client, topic: string) =>
    client.request(
      { method: "tools/call", params: { name: TOOL, arguments: { topic }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );

  it("the gateway advertises tasks and lists the task-required tool", async () => {
    assert.ok(a.getServerCapabilities()?.tasks, "tasks capability");
    const { tools } = await a.listTools();
    const tool = tools.find((t) => t.name === TOOL)!;
    assert.equal(tool.execution?.taskSupport, "required");
  });

  it("a task-required tool runs to completion: created, polled, result read", async () => {
    const { task } = await create(a, "gateways");
    assert.match(task.taskId, /^[0-9a-f-]{36}$/, "an opaque gateway task id");
    const result = await a.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      CallToolResultSchema,
      { timeout: 30_000 },
    );
    assert.match(textOf(result), /gateways/);
    const done = await a.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(done.status, "completed");
    assert.equal(done.taskId, task.taskId);
  });

  it("a task can be cancelled", async () => {
    const { task } = await create(a, "cancel me");
    const cancelled = await a.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
    assert.equal(cancelled.status, "cancelled");
    const now = await a.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(now.status, "cancelled");
  });

  it("another token can neither see nor touch the task", async () => {
    const { task } = await create(a, "private");
    await assertTaskOutOfReach(b, task.taskId);
    const mine = await a.request({ method: "tasks/list", params: {} }, ListTasksResultSchema);
    assert.ok(mine.tasks.some((t) => t.taskId === task.taskId));
    await a.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
  });
});
