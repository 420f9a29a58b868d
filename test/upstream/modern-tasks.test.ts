/**
 * Tasks on a 2026-07-28 upstream that offers the tasks extension: the upstream is a first
 * gateway in front of the conformance fixture (its 2026-07-28 door serves the extension), and a
 * second gateway reaches it with `protocol: modern`. A 2026-07-28 client's task call is relayed
 * (the upstream makes the task; get, cancel and the inlined result reach it); a 2025 session's
 * task-augmented call becomes an extension task served as 2025 `tasks/*`; ids stay their
 * creator's; a modern upstream without the extension gets no task advertised.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { assertTaskOutOfReach } from "../_helpers/tasks.ts";
import { authedHttpClient, bearer } from "../security/_http.ts";
import { answerOf, postModern } from "../protocol/_modern.ts";

const EXTENSION = "io.modelcontextprotocol/tasks";
const TOKEN_A = "modern-upstream-tasks-a-0123456789";
const TOKEN_B = "modern-upstream-tasks-b-0123456789";
const WITH_TASKS = { elicitation: {}, extensions: { [EXTENSION]: {} } };

type Answer = {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

describe("tasks on a 2026-07-28 upstream with the tasks extension", () => {
  let first: TestGateway;
  let gw: TestGateway;
  let bare: TestGateway;
  let a: Client;
  let b: Client;

  const rpc = async (
    url: string,
    token: string,
    method: string,
    params: Record<string, unknown>,
    caps: Record<string, unknown> = WITH_TASKS,
  ) => await answerOf(await postModern(url, token, method, params, { caps })) as Answer;
  const modernA = (method: string, params: Record<string, unknown>) =>
    rpc(gw.url, TOKEN_A, method, params);
  const modernB = (method: string, params: Record<string, unknown>) =>
    rpc(gw.url, TOKEN_B, method, params);

  /** Polls `tasks/get` as token A until the task ended (bounded: 30 s). */
  async function ended(taskId: string): Promise<Record<string, unknown>> {
    const end = Date.now() + 30_000;
    for (;;) {
      const { result, error } = await modernA("tasks/get", { taskId });
      assert.ok(result, `tasks/get failed: ${JSON.stringify(error)}`);
      const status = String(result.status);
      if (["completed", "failed", "cancelled"].includes(status) || Date.now() > end) return result;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function createModern(name: string, args: Record<string, unknown>): Promise<string> {
    const { result, error } = await modernA("tools/call", { name, arguments: args });
    assert.ok(result, `tools/call failed: ${JSON.stringify(error)}`);
    assert.equal(result.resultType, "task", JSON.stringify(result));
    return String(result.taskId);
  }

  const create2025 = (client: Client, name: string, args: Record<string, unknown>) =>
    client.request(
      { method: "tools/call", params: { name, arguments: args, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );

  before(async () => {
    first = await startTestGateway(`
servers:
  conformance: ${nodeServer("conformance.mjs", "prefix: false")}
`);
    gw = await startTestGateway(`
gateway:
  auth:
    tokens:
      - { name: a, token: ${TOKEN_A} }
      - { name: b, token: ${TOKEN_B} }
servers:
  up: { url: "${first.url}/mcp", protocol: modern }
`);
    bare = await startTestGateway(`
servers:
  plain: ${nodeServer("modern.mjs", "protocol: modern")}
`);
    a = await authedHttpClient(gw.url, TOKEN_A);
    b = await authedHttpClient(gw.url, TOKEN_B);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gw?.stop();
    await bare?.stop();
    await first?.stop();
  });

  it("both doors advertise tasks for the upstream's extension", async () => {
    assert.ok(a.getServerCapabilities()?.tasks?.requests?.tools?.call, "2025 tasks capability");
    const { result } = await modernA("server/discover", {});
    const caps = result!.capabilities as { extensions?: Record<string, unknown> };
    assert.ok(caps.extensions?.[EXTENSION], "the extension on the 2026-07-28 door");
  });

  it("a 2026-07-28 client's task is made upstream: status, then the inlined result", {
    timeout: 60_000,
  }, async () => {
    const taskId = await createModern("up__slow_compute", { seconds: 1, label: "relayed" });
    const working = await modernA("tasks/get", { taskId });
    assert.equal(working.result?.taskId, taskId);
    assert.ok(["working", "completed"].includes(String(working.result?.status)));
    const done = await ended(taskId);
    assert.equal(done.status, "completed");
    const result = done.result as { content: { text: string }[] };
    assert.match(result.content[0]!.text, /computed relayed after 1s/);
  });

  it("a 2026-07-28 client cancels its task upstream", { timeout: 60_000 }, async () => {
    const taskId = await createModern("up__slow_compute", { seconds: 30, label: "stop" });
    const ack = await modernA("tasks/cancel", { taskId });
    assert.deepEqual(ack.error, undefined);
    assert.equal(ack.result?.resultType, "complete");
    assert.equal((await ended(taskId)).status, "cancelled");
  });

  it("a failing job's tool error and a crashed job's error arrive", {
    timeout: 60_000,
  }, async () => {
    const failing = await ended(await createModern("up__failing_job", {}));
    assert.equal(failing.status, "completed");
    const result = failing.result as { isError?: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /the job failed/);
    const crashed = await ended(await createModern("up__protocol_error_job", {}));
    assert.equal(crashed.status, "failed");
    assert.equal(crashed.result, undefined);
    assert.equal(typeof (crashed.error as { code?: unknown }).code, "number");
  });

  it("another token can neither read nor cancel a 2026-07-28 client's task", {
    timeout: 60_000,
  }, async () => {
    const taskId = await createModern("up__slow_compute", { seconds: 30, label: "mine" });
    const read = await modernB("tasks/get", { taskId });
    assert.equal(read.result, undefined);
    assert.equal(read.error?.code, -32602);
    const cancel = await modernB("tasks/cancel", { taskId });
    assert.equal(cancel.result, undefined);
    assert.equal(cancel.error?.code, -32602);
    const still = await modernA("tasks/get", { taskId });
    assert.equal(still.result?.status, "working", "the other token's cancel reached nothing");
    await modernA("tasks/cancel", { taskId });
  });

  it("a 2025 session's task-augmented call becomes an upstream task: get, result, list", {
    timeout: 60_000,
  }, async () => {
    const { task } = await create2025(a, "up__slow_compute", { seconds: 1, label: "old" });
    assert.match(task.taskId, /^[0-9a-f-]{36}$/);
    const now = await a.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(now.taskId, task.taskId);
    const listed = await a.request({ method: "tasks/list", params: {} }, ListTasksResultSchema);
    assert.ok(listed.tasks.some((t) => t.taskId === task.taskId), "listed for its creator");
    const result = await a.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      CallToolResultSchema,
      { timeout: 30_000 },
    );
    assert.match(textOf(result), /computed old after 1s/);
    const done = await a.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(done.status, "completed");
  });

  it("a 2025 session is told its upstream task's status changes", {
    timeout: 60_000,
  }, async () => {
    const told: { taskId: string; status: string }[] = [];
    a.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      told.push(n.params);
    });
    const { task } = await create2025(a, "up__slow_compute", { seconds: 1, label: "told" });
    await waitFor(
      () => told.some((t) => t.taskId === task.taskId && t.status === "completed"),
      30_000,
      "the completed status",
    );
  });

  it("a 2025 session cancels its upstream task; a crashed job's result is its error", {
    timeout: 60_000,
  }, async () => {
    const { task } = await create2025(a, "up__slow_compute", { seconds: 30, label: "halt" });
    const cancelled = await a.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
    assert.equal(cancelled.taskId, task.taskId);
    assert.equal(cancelled.status, "cancelled");
    const crashed = await create2025(a, "up__protocol_error_job", {});
    await assert.rejects(
      a.request(
        { method: "tasks/result", params: { taskId: crashed.task.taskId } },
        CallToolResultSchema,
        { timeout: 30_000 },
      ),
      (err: { code?: unknown }) => err.code === -32603,
    );
    const failed = await a.request(
      { method: "tasks/get", params: { taskId: crashed.task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(failed.status, "failed");
  });

  it("another session's token can neither read nor cancel a 2025 session's task", {
    timeout: 60_000,
  }, async () => {
    const { task } = await create2025(a, "up__slow_compute", { seconds: 30, label: "own" });
    await assertTaskOutOfReach(b, task.taskId);
    const mine = await a.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(mine.status, "working");
    await a.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
  });

  it("what a 2026-07-28 client's task asks becomes its inputRequests, answered by tasks/update", {
    timeout: 60_000,
  }, async () => {
    const taskId = await createModern("up__confirm_delete", { filename: "a.txt" });
    const end = Date.now() + 30_000;
    let asked: Record<string, { method: string }> | undefined;
    while (!asked && Date.now() < end) {
      const { result } = await modernA("tasks/get", { taskId });
      if (result?.status === "input_required") {
        asked = result.inputRequests as Record<string, { method: string }>;
      } else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(asked, "the task's question reached its client");
    const [key, request] = Object.entries(asked)[0]!;
    assert.equal(request.method, "elicitation/create");
    const other = await modernB("tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: { confirm: false } } },
    });
    assert.equal(other.error?.code, -32602, "another token cannot answer it");
    const answered = await modernA("tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: { confirm: true } } },
    });
    assert.equal(answered.error, undefined);
    const done = await ended(taskId);
    assert.equal(done.status, "completed");
    assert.match((done.result as { content: { text: string }[] }).content[0]!.text, /deleted a/);
  });

  it("a task that asks two things at once shows its 2026-07-28 client both", {
    timeout: 60_000,
  }, async () => {
    const taskId = await createModern("up__multi_input", {});
    const end = Date.now() + 30_000;
    let asked: Record<string, unknown> = {};
    while (Object.keys(asked).length < 2 && Date.now() < end) {
      const { result } = await modernA("tasks/get", { taskId });
      asked = (result?.inputRequests ?? {}) as Record<string, unknown>;
      if (Object.keys(asked).length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(Object.keys(asked).sort(), ["confirm", "name"]);
    await modernA("tasks/update", {
      taskId,
      inputResponses: {
        name: { action: "accept", content: { name: "Ada" } },
        confirm: { action: "accept", content: { confirm: true } },
      },
    });
    const done = await ended(taskId);
    assert.match(
      (done.result as { content: { text: string }[] }).content[0]!.text,
      /name=Ada, confirm=true/,
    );
  });

  it("what a 2025 session's task asks reaches that session as an elicitation", {
    timeout: 60_000,
  }, async () => {
    const client = new Client(
      { name: "tasks-elicit", version: "1" },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: "accept",
      content: { confirm: true },
    }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: bearer(TOKEN_A) },
      }),
    );
    try {
      const { task } = await create2025(client, "up__confirm_delete", { filename: "b.txt" });
      const result = await client.request(
        { method: "tasks/result", params: { taskId: task.taskId } },
        CallToolResultSchema,
        { timeout: 30_000 },
      );
      assert.match(textOf(result), /deleted b\.txt/);
    } finally {
      await client.close();
    }
  });

  it(
    "a call the upstream answers at once: a 2026-07-28 client gets the result, a 2025 session a done task",
    {
      timeout: 60_000,
    },
    async () => {
      const direct = await modernA("tools/call", { name: "up__test_simple_text", arguments: {} });
      assert.equal(direct.result?.resultType, "complete", JSON.stringify(direct));
      assert.match(JSON.stringify(direct.result?.content), /simple text response/);
      const { task } = await create2025(a, "up__test_simple_text", {});
      assert.equal(task.status, "completed");
      const result = await a.request(
        { method: "tasks/result", params: { taskId: task.taskId } },
        CallToolResultSchema,
      );
      assert.match(textOf(result), /simple text response/);
      await assert.rejects(
        b.request(
          { method: "tasks/result", params: { taskId: task.taskId } },
          CallToolResultSchema,
        ),
        /unknown task/,
      );
    },
  );

  it("a modern upstream without the extension gets no tasks advertised", async () => {
    const client = await httpClient(bare.url);
    try {
      assert.equal(client.getServerCapabilities()?.tasks, undefined);
    } finally {
      await client.close();
    }
    const { result } = await rpc(bare.url, "", "server/discover", {});
    const caps = result!.capabilities as { extensions?: Record<string, unknown> };
    assert.equal(caps.extensions?.[EXTENSION], undefined);
  });
});
