/**
 * Tasks on the 2026-07-28 door (the `io.modelcontextprotocol/tasks` extension), with raw HTTP
 * requests pinned to the revision, against the reference "everything" server (a 2025 upstream
 * whose `simulate-research-query` runs only as a task): the gateway creates the task when the
 * request negotiated the extension, reports it with `tasks/get` (result inlined at the end),
 * turns the task's elicitation into `inputRequests` answered with `tasks/update`, and cancels it;
 * ids stay bound to the token that created the task.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EVERYTHING } from "../gateway/passthrough/_helpers.ts";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "./_modern.ts";

const EXTENSION = "io.modelcontextprotocol/tasks";
const TOOL = "everything__simulate-research-query";
const TOKEN_A = "modern-tasks-token-a-0123456789";
const TOKEN_B = "modern-tasks-token-b-0123456789";
const WITH_TASKS = { elicitation: {}, extensions: { [EXTENSION]: {} } };

interface Answer {
  result?: Record<string, unknown> & { content?: { text?: string }[] };
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** One raw 2026-07-28 request (envelope and routing headers); answers the JSON-RPC body. */
async function rpc(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  caps: Record<string, unknown> = WITH_TASKS,
): Promise<Answer> {
  return await answerOf(await postModern(url, token, method, params, { caps })) as Answer;
}

describe("tasks on the 2026-07-28 door", () => {
  let gw: TestGateway;
  const a = (method: string, params: Record<string, unknown>, caps?: Record<string, unknown>) =>
    rpc(gw.url, TOKEN_A, method, params, caps);
  const b = (method: string, params: Record<string, unknown>) =>
    rpc(gw.url, TOKEN_B, method, params);

  /** Polls `tasks/get` until `done` holds (bounded: 40 s). */
  async function until(
    taskId: string,
    done: (task: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>> {
    const end = Date.now() + 40_000;
    for (;;) {
      const { result, error } = await a("tasks/get", { taskId });
      assert.ok(result, `tasks/get failed: ${JSON.stringify(error)}`);
      if (done(result) || Date.now() > end) return result;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const create = async (topic: string, ambiguous = false) => {
    const { result, error } = await a("tools/call", {
      name: TOOL,
      arguments: { topic, ambiguous },
    });
    assert.ok(result, `tools/call failed: ${JSON.stringify(error)}`);
    assert.equal(result.resultType, "task");
    return result.taskId as string;
  };

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
    // The task tool is registered once the upstream knows its client: wait for it.
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
      const { result } = await a("tools/list", {});
      const tools = (result?.tools ?? []) as { name: string }[];
      if (tools.some((t) => t.name === TOOL)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    await gw?.stop();
  });

  it("server/discover advertises the extension, not the 2025 tasks capability", async () => {
    const { result } = await a("server/discover", {});
    const caps = result!.capabilities as Record<string, Record<string, unknown> | undefined>;
    assert.ok(caps.extensions?.[EXTENSION], "extension advertised");
    assert.equal(caps.tasks, undefined);
  });

  it("a task-only tool runs as a task to completion, its result inlined", {
    timeout: 60_000,
  }, async () => {
    const taskId = await create("gateways");
    assert.match(taskId, /^[0-9a-f-]{36}$/, "an opaque gateway task id");
    const done = await until(taskId, (t) => t.status === "completed");
    assert.equal(done.status, "completed");
    assert.equal(done.resultType, "complete");
    assert.equal(typeof done.ttlMs, "number");
    assert.ok(!("ttl" in done) && !("pollInterval" in done), "no 2025 field names");
    const result = done.result as { content: { text: string }[]; _meta?: object };
    assert.match(result.content[0]!.text, /gateways/);
    assert.equal(result._meta, undefined, "no related-task _meta on the inlined result");
  });

  it("the task's elicitation is an inputRequest, answered with tasks/update", {
    timeout: 60_000,
  }, async () => {
    const taskId = await create("python", true);
    const asking = await until(taskId, (t) => t.status !== "working");
    assert.equal(asking.status, "input_required");
    const requests = asking.inputRequests as Record<string, { method: string }>;
    const [key] = Object.keys(requests);
    assert.equal(requests[key!]!.method, "elicitation/create");
    const ack = await a("tasks/update", {
      taskId,
      inputResponses: { [key!]: { action: "accept", content: { interpretation: "snake" } } },
    });
    assert.deepEqual(Object.keys(ack.result!).sort(), ["_meta", "resultType"]);
    const done = await until(taskId, (t) => t.status === "completed");
    const text = (done.result as { content: { text: string }[] }).content[0]!.text;
    assert.match(text, /Clarification\*\*: snake/);
  });

  it("a task is cancelled with an empty acknowledgement, also once it ended", async () => {
    const taskId = await create("cancel me");
    const ack = await a("tasks/cancel", { taskId });
    assert.equal(ack.result?.resultType, "complete");
    assert.ok(!("status" in ack.result!), "an acknowledgement, not a task");
    const now = await until(taskId, (t) => t.status !== "working");
    assert.equal(now.status, "cancelled");
    const again = await a("tasks/cancel", { taskId });
    assert.equal(again.result?.resultType, "complete");
  });

  it("without the extension a task-only tool is refused with -32021", async () => {
    const { error } = await a("tools/call", { name: TOOL, arguments: { topic: "x" } }, {});
    assert.equal(error?.code, -32021);
    const required = error?.data?.requiredCapabilities as { extensions?: object };
    assert.ok(required?.extensions && EXTENSION in required.extensions);
    const get = await a("tasks/get", { taskId: "whatever" }, {});
    assert.equal(get.error?.code, -32021);
  });

  it("another token can neither read, answer nor cancel the task", async () => {
    const taskId = await create("private");
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const { error } = await b(method, { taskId, inputResponses: {} });
      assert.equal(error?.code, -32602, `${method} by another token`);
      assert.match(error!.message, /unknown task/);
    }
    const mine = await a("tasks/get", { taskId });
    assert.equal(mine.result?.taskId, taskId);
    await a("tasks/cancel", { taskId });
  });
});
