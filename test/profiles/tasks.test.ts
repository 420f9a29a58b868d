/**
 * Tasks belong to the profile endpoint that created them: the same token on another endpoint
 * (`/mcp` included) can neither see nor touch them, and a task-required tool outside a profile
 * cannot be started there.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { assertTaskOutOfReach } from "../_helpers/tasks.ts";
import { EVERYTHING, untilTool } from "../gateway/passthrough/_helpers.ts";
import { FULL, legacyClient } from "./_profiles.ts";

const TOOL = "everything__simulate-research-query";

describe("tasks on profile endpoints", () => {
  let gw: TestGateway;
  let research: Client;
  let whole: Client;
  let other: Client;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}" }
servers:
  everything: ${EVERYTHING}
  echo: ${nodeServer("echo.mjs")}
profiles:
  research:
    servers: [everything]
  plain:
    servers: [echo]
`);
    research = await legacyClient(gw.url, "/mcp/research");
    await untilTool(research, TOOL);
    whole = await legacyClient(gw.url, "/mcp");
    other = await legacyClient(gw.url, "/mcp/plain");
  });
  after(async () => {
    await Promise.all([research, whole, other].map((c) => c?.close().catch(() => {})));
    await gw?.stop();
  });

  const create = (client: Client) =>
    client.request(
      {
        method: "tools/call",
        params: { name: TOOL, arguments: { topic: "x" }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );

  it("are seen only on the endpoint that created them", async () => {
    const { task } = await create(research);
    for (const client of [whole, other]) await assertTaskOutOfReach(client, task.taskId);
    const got = await research.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(got.taskId, task.taskId);
    await research.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
  });

  it("cannot be started for a tool outside the profile", async () => {
    await assert.rejects(create(other), /unknown tool/);
  });
});
