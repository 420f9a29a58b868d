/**
 * `oauth: mode: per-user` seen from three users: what each is listed, finds, describes, is
 * offered as prompts and completions, hears as `list_changed`, and what quarantine holds back,
 * is what *that user's* connection declares — never another's. The upstream (a real
 * JWT-verifying MCP server behind a real oidc-provider) names the caller's subject in every
 * tool, prompt, completion and task result, so any crossing shows. Tasks run on the owner's
 * connection and are read back there; another user can neither read nor cancel them.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskResultSchema,
  TaskStatusNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { approveCommand } from "../../../src/cli/approve.ts";
import { textOf, waitFor } from "../../_helpers/gateway.ts";
import { execute } from "../../tools/execute/_setup.ts";
import { browserLogin, configFile, type Parties, startFromFile, startParties } from "./_setup.ts";

const TOKENS = {
  alice: "alice-token-0123456789",
  bob: "bob-token-0123456789",
  eve: "eve-token-01234567890",
  ops: "ops-token-0123456789ab",
};
type Who = keyof typeof TOKENS;

describe("upstream OAuth, per-user mode: each user sees only their own connection", {
  timeout: 180_000,
}, () => {
  let parties: Parties;
  let gw: RunningGateway;
  let base: string;
  let file: string;
  const clients = {} as Record<Who, Client>;
  const heard: Record<Who, number> = { alice: 0, bob: 0, eve: 0, ops: 0 };
  const extra: Client[] = [];

  const call = async (who: Who, name: string) =>
    await clients[who].callTool({ name, arguments: {} });
  const names = async (who: Who) => (await clients[who].listTools()).tools.map((t) => t.name);
  /** Connects `who`'s own account: the call's connect link, opened as a browser would. */
  const connect = async (who: Who) => {
    const text = textOf(await call(who, "tracker__whoami"));
    const link = /open (http\S+\/oauth\/link\?t=[A-Za-z0-9_-]+)/.exec(text);
    assert.ok(link, `no connect link in: ${text}`);
    const answer = await browserLogin(link[1]!, who);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(textOf(await call(who, "tracker__whoami")), who);
  };

  before(async () => {
    parties = await startParties(300, [], "per-subject");
    const yaml = "gateway:\n  auth:\n    tokens:\n" +
      Object.entries(TOKENS).map(([name, token]) =>
        `      - { name: ${name}, token: ${token}${name === "ops" ? ", admin: true" : ""} }\n`
      ).join("") +
      "servers:\n  tracker:\n" +
      `    url: ${JSON.stringify(parties.upstream.url)}\n` +
      "    oauth: { mode: per-user }\n    pin: quarantine\n" +
      // A discoverable tool makes the gateway offer tool_search and tool_describe.
      "    tools: { overrides: { change: { discoverable: true } } }\n" +
      "scripting: { execute: true }\n";
    file = configFile("mcpgw-peruser-views-", yaml);
    ({ gw, base } = await startFromFile(file));
    for (const [name, token] of Object.entries(TOKENS) as [Who, string][]) {
      const client = new Client({ name: `test-${name}`, version: "1.0.0" });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard[name]++);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients[name] = client;
    }
  });
  after(async () => {
    for (const c of [...Object.values(clients), ...extra]) await c.close();
    await gw?.stop();
    await parties?.stop();
  });

  it("before anyone connects, nothing of the server is listed and a call names the link", async () => {
    assert.deepEqual((await names("bob")).filter((n) => n.startsWith("tracker__")), []);
    assert.match(textOf(await call("bob", "tracker__whoami")), /needs a login/);
    await connect("alice");
    const listed = (await clients.alice.listTools()).tools;
    const notes = listed.find((t) => t.name === "tracker__notes_alice");
    assert.equal(notes?.description, "private notes of alice");
  });

  it("a user who has not connected is listed, found and described nothing of alice's", async () => {
    const listed = JSON.stringify((await clients.bob.listTools()).tools);
    assert.ok(!listed.includes("alice"), listed);
    assert.deepEqual((await names("bob")).filter((n) => n.startsWith("tracker__")), []);
    const found = textOf(await call2("bob", "tool_search", { query: "private notes" }));
    assert.ok(!found.includes("notes of alice"), found);
    const described = await call2("bob", "tool_describe", { name: "tracker__notes_alice" });
    assert.equal(described.isError, true);
    assert.ok(!textOf(described).includes("private notes"), textOf(described));
    const script = await execute(
      clients.bob,
      `local found = tools.search{query = "private notes"}
       local ok, described = pcall(tools.describe, {path = "tracker__notes_alice"})
       return { found = found, described = ok and described or "refused" }`,
    );
    assert.ok(!script.isError, script.text);
    assert.ok(!JSON.stringify(script.structured.result).includes("notes of alice"), script.text);
    // A call by that name reaches bob's own (absent) connection: the connect link, no notes.
    const called = textOf(await call("bob", "tracker__notes_alice"));
    assert.match(called, /needs a login/);
    assert.ok(!called.includes("notes of alice"), called);
  });

  it("prompts and completions of alice's connection are hers alone", async () => {
    const mine = (await clients.alice.listPrompts()).prompts.map((p) => p.name);
    assert.deepEqual(mine, ["tracker__brief_alice"]);
    const completed = await clients.alice.complete({
      ref: { type: "ref/prompt", name: "tracker__brief_alice" },
      argument: { name: "topic", value: "" },
    });
    assert.deepEqual(completed.completion.values, ["topic of alice"]);
    assert.deepEqual((await clients.bob.listPrompts()).prompts, []);
    // bob learns only that he has not connected (with his own link), nothing of alice's prompt.
    const refused = await clients.bob.getPrompt({ name: "tracker__brief_alice" }).catch((e) => e);
    assert.ok(refused instanceof Error);
    assert.match(refused.message, /unknown prompt|needs a login: open \S+\/oauth\/link\?t=/);
    assert.doesNotMatch(refused.message, /topic of alice/);
    await assert.rejects(
      clients.bob.complete({
        ref: { type: "ref/prompt", name: "tracker__brief_alice" },
        argument: { name: "topic", value: "" },
      }),
      /unknown prompt|needs a login/,
    );
  });

  it("after eve connects, alice and eve are each listed their own tools only", async () => {
    await connect("eve");
    const alice = await names("alice");
    const eve = await names("eve");
    assert.ok(alice.includes("tracker__notes_alice") && !alice.includes("tracker__notes_eve"));
    assert.ok(eve.includes("tracker__notes_eve") && !eve.includes("tracker__notes_alice"));
    const found = textOf(await call2("eve", "tool_search", { query: "private notes" }));
    assert.match(found, /tracker__notes_eve/);
    assert.ok(!found.includes("alice"), found);
    const script = await execute(clients.eve, `return tools.search{query = "private notes"}`);
    assert.ok(!JSON.stringify(script.structured.result).includes("alice"), script.text);
    assert.deepEqual(
      (await clients.eve.listPrompts()).prompts.map((p) => p.name),
      ["tracker__brief_eve"],
    );
    assert.equal(textOf(await call("eve", "tracker__notes_eve")), "notes of eve");
  });

  it("a 2026-07-28 client is listed its own user's tools and prompts only", async () => {
    const modern = async (who: Who) => {
      const client = new V2Client({ name: `modern-${who}`, version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      });
      await client.connect(
        new V2Transport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${TOKENS[who]}` } },
        }),
      );
      try {
        const tools = (await client.listTools()).tools.map((t) => t.name);
        const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
        return [...tools, ...prompts].filter((n) =>
          n.startsWith("tracker__notes_") || n.startsWith("tracker__brief_")
        );
      } finally {
        await client.close();
      }
    };
    assert.deepEqual(await modern("alice"), ["tracker__notes_alice", "tracker__brief_alice"]);
    assert.deepEqual(await modern("bob"), []);
    assert.deepEqual(await modern("eve"), ["tracker__notes_eve", "tracker__brief_eve"]);
  });

  it("a change on alice's connection is held for alice alone; only alice hears of it", async () => {
    heard.alice = heard.bob = heard.eve = 0;
    await call("alice", "tracker__change");
    await waitFor(() => heard.alice > 0, 10_000);
    await assert.rejects(call("alice", "tracker__whoami"), /changed since it was approved/);
    assert.ok(!(await names("alice")).includes("tracker__whoami"));
    // eve's connection declares what it did: nothing of hers is held, she hears nothing.
    assert.equal(textOf(await call("eve", "tracker__whoami")), "eve");
    assert.equal(heard.eve, 0);
    assert.equal(heard.bob, 0);
  });

  it("approving alice's change (on the status page, by her key) releases it for her", async () => {
    const status = await (await fetch(`${base}/status.json`, {
      headers: { authorization: `Bearer ${TOKENS.ops}` },
    })).text();
    const pins = (JSON.parse(status) as { pins: { server: string; user?: string }[] }).pins;
    // Only alice's connection differs from its pins; she appears under an opaque key.
    const held = pins.filter((p) => p.server === "tracker");
    assert.equal(held.length, 1, status);
    assert.match(held[0]!.user ?? "", /^[0-9a-f]{32}$/);
    const res = await fetch(`${base}/pins/approve`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKENS.ops}`,
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ server: "tracker", user: held[0]!.user! }).toString(),
    });
    assert.equal(res.status, 200, await res.text());
    await waitFor(() => succeeds("alice", "tracker__whoami"), 10_000);
    assert.equal(textOf(await call("alice", "tracker__whoami")), "alice");
    // Changed back: held again, until the approve command (another process, writing the state
    // folder the gateway watches) approves it by the same key.
    await call("alice", "tracker__change");
    await waitFor(async () => !(await succeeds("alice", "tracker__whoami")), 10_000);
    assert.equal(await approveCommand(file, `tracker/${held[0]!.user}`, []), 0);
    await waitFor(() => succeeds("alice", "tracker__whoami"), 10_000);
    assert.equal(textOf(await call("eve", "tracker__whoami")), "eve");
  });

  it("what alice's connection asks reaches alice's calling session, never eve's", async () => {
    const asked: Record<"alice" | "eve", string[]> = { alice: [], eve: [] };
    const answering = async (who: "alice" | "eve") => {
      const client = new Client({ name: `asked-${who}`, version: "1.0.0" }, {
        capabilities: { elicitation: { form: {} } },
      });
      client.setRequestHandler(ElicitRequestSchema, (req) => {
        asked[who].push(String(req.params.message));
        return { action: "accept", content: { answer: `from ${who}` } };
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${TOKENS[who]}` } },
        }),
      );
      extra.push(client);
      return client;
    };
    const alice = await answering("alice");
    const eve = await answering("eve");
    const [a, e] = await Promise.all([
      alice.callTool({ name: "tracker__ask", arguments: {} }),
      eve.callTool({ name: "tracker__ask", arguments: {} }),
    ]);
    assert.equal(textOf(a), "answer: from alice");
    assert.equal(textOf(e), "answer: from eve");
    assert.deepEqual(asked, { alice: ["question for alice"], eve: ["question for eve"] });
  });

  it("a task runs on its owner's connection and is read back there, by its owner only", async () => {
    // Sessions opened now: the tasks capability is offered once a connection supports tasks.
    const alice = await session("alice");
    const eve = await session("eve");
    const { task } = await alice.request(
      {
        method: "tools/call",
        params: { name: "tracker__report", arguments: {}, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    for (
      const [method, schema] of [["tasks/get", GetTaskResultSchema], [
        "tasks/cancel",
        CancelTaskResultSchema,
      ]] as const
    ) {
      await assert.rejects(
        eve.request({ method, params: { taskId: task.taskId } }, schema),
        /unknown task/,
      );
    }
    await assert.rejects(
      eve.request(
        { method: "tasks/result", params: { taskId: task.taskId } },
        CallToolResultSchema,
      ),
      /unknown task/,
    );
    const result = await alice.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      CallToolResultSchema,
      { timeout: 30_000 },
    );
    assert.equal(textOf(result), "report of alice");
    const done = await alice.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    assert.equal(done.status, "completed");
  });

  it("a task's status reaches its owner even when another user's connection reuses its id", async () => {
    const statuses: Record<"alice" | "eve", { taskId: string; status: string }[]> = {
      alice: [],
      eve: [],
    };
    const alice = await session("alice", (s) => statuses.alice.push(s));
    const eve = await session("eve", (s) => statuses.eve.push(s));
    const create = (client: Client, args: Record<string, unknown>) =>
      client.request(
        {
          method: "tools/call",
          params: { name: "tracker__report", arguments: args, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
    // Both connections hand out upstream id "same"; eve's is remembered last.
    const mine = (await create(alice, { id: "same", ms: 1_500 })).task.taskId;
    const hers = (await create(eve, { id: "same", ms: 20_000 })).task.taskId;
    await waitFor(() => statuses.alice.some((s) => s.status === "completed"), 10_000);
    assert.deepEqual(
      statuses.alice.filter((s) => s.status === "completed").map((s) => s.taskId),
      [mine],
    );
    assert.deepEqual(statuses.eve.filter((s) => s.taskId === hers && s.status === "completed"), []);
  });

  /** A new session of `who` (closed with the others); `onStatus` hears its task statuses. */
  async function session(
    who: Who,
    onStatus?: (status: { taskId: string; status: string }) => void,
  ): Promise<Client> {
    const client = new Client({ name: `test-${who}-2`, version: "1.0.0" });
    if (onStatus) {
      client.setNotificationHandler(TaskStatusNotificationSchema, (n) => onStatus(n.params));
    }
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS[who]}` } },
      }),
    );
    extra.push(client);
    return client;
  }

  /** True when `who`'s call of `name` is answered without an error. */
  async function succeeds(who: Who, name: string): Promise<boolean> {
    try {
      return !(await call(who, name)).isError;
    } catch {
      return false;
    }
  }

  /** Calls a tool with arguments. */
  async function call2(who: Who, name: string, args: Record<string, unknown>) {
    return await clients[who].callTool({ name, arguments: args });
  }
});
