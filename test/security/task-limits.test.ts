/**
 * Task-augmented `tools/call`s are calls: they pass the same per-token gate as plain calls —
 * refused while the token's `concurrency` slots are held, counted against its rate, counted in
 * `mcp_gateway_tool_calls_total` — on a 2025 session and on the 2026-07-28 door (where each call
 * is its own HTTP request, so the request rate bounds a burst already). The upstream is the
 * conformance fixture, whose `slow_compute` runs as a task when asked.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "../protocol/_modern.ts";
import { authedHttpClient, bearer, openSession } from "./_http.ts";
import { postBatch } from "./_streams.ts";

const token = (name: string) => `${name}-task-limit-token-0123456789`;
const TOOL = "slow_compute";
const WITH_TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const SERVER = `tasks: ${
  nodeServer("conformance.mjs", `prefix: false, tools: { allow: ["${TOOL}"] }`)
}`;
const gatewayYaml = (rateLimit: string, names: string[]) => `
gateway:
  auth:
    tokens:
${names.map((n) => `      - { name: ${n}, token: "${token(n)}" }`).join("\n")}
      - { name: ops, token: "${token("ops")}", admin: true }
    rateLimit: ${rateLimit}
servers:
  ${SERVER}
`;

/** A task-augmented call of `slow_compute` as a JSON-RPC message. */
const taskCall = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: TOOL, arguments: { seconds: 0 }, task: { ttl: 60_000 } },
});

/** A 2026-07-28 `tools/call` of `slow_compute` that negotiated tasks; answers the JSON-RPC body. */
const modernTaskCall = async (url: string, name: string) =>
  await answerOf(
    await postModern(url, token(name), "tools/call", {
      name: TOOL,
      arguments: { seconds: 0 },
    }, { caps: WITH_TASKS }),
  ) as { result?: { resultType?: string }; error?: { code: number; message: string } };

/** The value of one sample of `/metrics` (0 when absent). */
async function sample(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: bearer(token("ops")) })).text();
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
const CALLS = (outcome: string) =>
  `mcp_gateway_tool_calls_total{server="tasks",tool="${TOOL}",outcome="${outcome}"}`;

describe("task-augmented calls under a held concurrency slot", () => {
  let gw: TestGateway;
  let busy: Client;
  before(async () => {
    gw = await startTestGateway(
      gatewayYaml("{ perMinute: 6000, burst: 1000, concurrency: 1 }", ["busy"]),
    );
    busy = await authedHttpClient(gw.url, token("busy"));
  });
  after(async () => {
    await busy?.close();
    await gw?.stop();
  });

  it("are refused on both eras while a plain call holds the slot, and counted", async () => {
    const held = busy.callTool({ name: TOOL, arguments: { seconds: 3 } });
    await new Promise((r) => setTimeout(r, 500));
    const refusals: string[] = [];
    for (let i = 0; i < 5; i++) {
      await busy.request(taskCall(10 + i), CreateTaskResultSchema).then(
        () => refusals.push("created"),
        (err: Error & { code?: number }) => refusals.push(`${err.code}: ${err.message}`),
      );
    }
    const modern = await modernTaskCall(gw.url, "busy");
    assert.equal(modern.error?.code, -32004, JSON.stringify(modern));
    assert.match(modern.error!.message, /rateLimit\.concurrency = 1/);
    assert.equal(refusals.length, 5);
    for (const r of refusals) assert.match(r, /^-32004: .*rateLimit\.concurrency = 1/);
    await held;

    // The slot is back: a task call creates its task (2025 and 2026-07-28).
    const { task } = await busy.request(taskCall(20), CreateTaskResultSchema);
    assert.match(task.taskId, /^[0-9a-f-]{36}$/);
    assert.equal((await modernTaskCall(gw.url, "busy")).result?.resultType, "task");
    const listed = await busy.request(
      { method: "tasks/list", params: {} },
      ListTasksResultSchema,
    );
    assert.ok(listed.tasks.length >= 1, "the created tasks are the token's");
    // Counted as plain calls are: one plain call and two task creations, all ended well (a call
    // the gate refuses is not counted, whatever its kind).
    assert.equal(await sample(gw.url, CALLS("ok")), 3);
  });
});

describe("task-augmented calls past a burst", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(gatewayYaml("{ perMinute: 1, burst: 4 }", ["bursty"]));
  });
  after(async () => await gw?.stop());

  it("a batch of 20 task calls on a 2025 session starts 4 tasks; 16 are refused", async () => {
    const sid = await openSession(gw.url, bearer(token("bursty")));
    const calls = Array.from({ length: 20 }, (_, i) => taskCall(100 + i));
    const answers = await postBatch(gw.url, sid, calls, bearer(token("bursty")));
    assert.equal(answers.length, 20);
    const created = answers.filter((a) => (a.result as { task?: unknown } | undefined)?.task);
    const refused = answers.filter((a) => a.error?.code === -32004);
    assert.equal(created.length, 4, JSON.stringify(answers.slice(0, 6)));
    assert.equal(refused.length, 16);
    const [listed] = await postBatch(gw.url, sid, [{
      jsonrpc: "2.0",
      id: 200,
      method: "tasks/list",
      params: {},
    }], bearer(token("bursty")));
    assert.equal((listed?.result as { tasks: unknown[] }).tasks.length, 4);
  });
});

describe("task-augmented calls run where plain calls run", () => {
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth:
    tokens: [{ name: iso, token: "${token("iso")}" }]
servers:
  tasks: ${
      nodeServer(
        "conformance.mjs",
        `prefix: false, isolation: session, tools: { allow: ["${TOOL}"] }`,
      )
    }
`);
    client = await authedHttpClient(gw.url, token("iso"));
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("on a 2025 session, the task lives on the session's own process", async () => {
    const isolated = gw.running.gateway.pool.isolated;
    assert.equal(isolated.count("tasks"), 0);
    const { task } = await client.request(taskCall(1), CreateTaskResultSchema);
    assert.equal(isolated.count("tasks"), 1, "the session's own process was started for it");
    const result = await client.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      CallToolResultSchema,
      { timeout: 30_000 },
    );
    assert.match(textOf(result), /computed value/);
  });

  it("on the 2026-07-28 door, a tool that allows a task runs as a plain call", async () => {
    const answer = await modernTaskCall(gw.url, "iso") as { result?: Record<string, unknown> };
    assert.notEqual(answer.result?.resultType, "task", JSON.stringify(answer));
    assert.match(textOf(answer.result), /computed value/);
  });
});

describe("one token's share of the task table", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(gatewayYaml("{ perMinute: 100000, burst: 100000 }", [
      "hog",
      "victim",
    ]));
  });
  after(async () => await gw?.stop());

  it("10,050 tasks of one token refuse it past its share; another's running task stays", {
    timeout: 120_000,
  }, async () => {
    const victim = await openSession(gw.url, bearer(token("victim")));
    const running = {
      ...taskCall(1),
      params: { name: TOOL, arguments: { seconds: 120 }, task: { ttl: 600_000 } },
    };
    const [made] = await postBatch(gw.url, victim, [running], bearer(token("victim")));
    const victimTask = (made?.result as { task: { taskId: string } }).task.taskId;

    const hog = await openSession(gw.url, bearer(token("hog")));
    // The hog's tasks keep running (30 s) while it creates more.
    const hogCall = (id: number) => ({
      ...taskCall(id),
      params: { name: TOOL, arguments: { seconds: 30 }, task: { ttl: 600_000 } },
    });
    let created = 0;
    const refusals = new Set<string>();
    const ids: string[] = [];
    for (let batch = 0; batch < 201; batch++) {
      const calls = Array.from({ length: 50 }, (_, i) => hogCall(1000 + batch * 50 + i));
      for (const a of await postBatch(gw.url, hog, calls, bearer(token("hog")))) {
        const task = (a.result as { task?: { taskId: string } } | undefined)?.task;
        if (task) {
          created++;
          ids.push(task.taskId);
        } else refusals.add(`${a.error?.code}: ${a.error?.message}`);
      }
    }
    const rpc = (sid: string, who: string, method: string, taskId: string) =>
      postBatch(
        gw.url,
        sid,
        [{ jsonrpc: "2.0", id: 7, method, params: { taskId } }],
        bearer(token(who)),
      ).then(([a]) => a);
    // The other token's running task is still there: no eviction of someone else's task.
    const seen = await rpc(victim, "victim", "tasks/get", victimTask);
    assert.equal((seen?.result as { status?: string })?.status, "working", JSON.stringify(seen));
    assert.equal(created, 1000, "the default share");
    assert.equal(refusals.size, 1, [...refusals].join("\n"));
    assert.match([...refusals][0]!, /^-32004: .*gateway\.limits\.tasksPerToken = 1000/);

    // A task of its own that has ended (here: cancelled) makes room for the hog's next one.
    const cancelled = await rpc(hog, "hog", "tasks/cancel", ids[0]!);
    assert.equal((cancelled?.result as { status?: string })?.status, "cancelled");
    const [next] = await postBatch(gw.url, hog, [hogCall(99_999)], bearer(token("hog")));
    assert.ok((next?.result as { task?: unknown })?.task, JSON.stringify(next));
  });
});
