/**
 * An upstream that speaks both eras on one URL (`dual-era.mjs`, whose 2026-07-28 path, like the
 * conformance reference server's, can carry no sampling, elicitation or subscription): the
 * gateway finds it 2026-07-28 by its probe, and serves a 2025 session's calls over a second,
 * 2025-11-25 connection to it, opened on the first such call — sampling and form elicitation
 * reach the session as server-to-client requests, `resources/subscribe` is held natively and
 * `resources/updated` reaches the subscribed session only. A 2026-07-28 client keeps the modern
 * connection. A 2026-07-28-only server refuses the 2025 handshake, and one that answers it without
 * a session (the SDK's stateless fallback) could carry neither: their 2025 sessions stay on the
 * modern connection, whose rounds reach them as before.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  fixture,
  httpClient,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";

/** An HTTP fixture (`dual-era.mjs`, or `modern.mjs` over HTTP); resolves its port. */
function httpFixture(
  file = "dual-era.mjs",
  legacy = "reject",
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn("node", [fixture(file)], {
    env: { ...process.env, PORT: "0", MODERN_HTTP: "1", MODERN_LEGACY: legacy },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /PORT=(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", () => reject(new Error("the fixture exited")));
  });
}

/**
 * Two 2025 sessions each have a call in flight on one shared connection when the server asks:
 * each gets its own sampling and elicitation, never the other's, and only the subscribed one
 * hears `resources/updated`.
 */
async function twoAtOnce(
  session: (capabilities: object) => Promise<Client>,
  server: string,
): Promise<void> {
  const heard = { a: [] as string[], b: [] as string[] };
  const updates = { a: 0, b: 0 };
  const answering = async (who: "a" | "b") => {
    const c = await session({ sampling: {}, elicitation: { form: {} } });
    c.setRequestHandler(CreateMessageRequestSchema, () => {
      heard[who].push("sampling");
      return { role: "assistant", model: "test", content: { type: "text", text: who } };
    });
    c.setRequestHandler(ElicitRequestSchema, () => {
      heard[who].push("elicitation");
      return { action: "accept", content: { name: who } };
    });
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void updates[who]++);
    return c;
  };
  const a = await answering("a");
  const b = await answering("b");
  await a.subscribeResource({ uri: "note://watched" });
  // The server asks only once both calls are running: the two questions arrive on one 2025
  // connection while calls of both sessions are in flight on it.
  const both = (tool: string) =>
    Promise.all(
      [a, b].map((c) => c.callTool({ name: `${server}__${tool}`, arguments: { together: 2 } })),
    );
  const [sa, sb] = await both("sample");
  assert.equal(textOf(sa!), "model said a");
  assert.equal(textOf(sb!), "model said b");
  const [ea, eb] = await both("ask");
  assert.equal(textOf(ea!), "hello a");
  assert.equal(textOf(eb!), "hello b");
  // Neither session was asked the other's question, nor told of the other's subscription.
  await Promise.all([a, b].map((c) => c.callTool({ name: `${server}__touch`, arguments: {} })));
  await waitFor(() => updates.a === 2, 5000, "resources/updated for the subscribed session");
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(heard, { a: ["sampling", "elicitation"], b: ["sampling", "elicitation"] });
  assert.equal(updates.b, 0);
  await a.unsubscribeResource({ uri: "note://watched" });
}

describe("a 2025 session behind an upstream of both eras", () => {
  let gw: TestGateway;
  let server: ChildProcess | undefined;
  let upstream = "";
  const open: { close(): Promise<void> }[] = [];
  before(async () => {
    const started = await httpFixture();
    server = started.child;
    upstream = `http://127.0.0.1:${started.port}/mcp`;
    gw = await startTestGateway(`
servers:
  dual: { url: "${upstream}" }
`);
  });
  after(async () => {
    for (const c of open) await c.close().catch(() => {});
    await gw?.stop();
    if (server?.pid) process.kill(server.pid, "SIGKILL");
  });

  async function session(capabilities = {}): Promise<Client> {
    const c = await httpClient(gw.url, capabilities);
    open.push(c);
    return c;
  }

  it("the upstream is reached in 2026-07-28 first", async () => {
    const s = await (await fetch(`${gw.url}/status.json`)).json() as {
      upstreams: { name: string; protocol: string }[];
    };
    assert.equal(s.upstreams.find((u) => u.name === "dual")?.protocol, "modern");
  });

  it("a 2025 session's sampling reaches it over the 2025 connection", async () => {
    const c = await session({ sampling: {} });
    c.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: "assistant",
      model: "test",
      content: { type: "text", text: "hi there" },
    }));
    const r = await c.callTool({ name: "dual__sample", arguments: {} });
    assert.equal(textOf(r), "model said hi there");
    assert.equal(textOf(await c.callTool({ name: "dual__era", arguments: {} })), "2025-11-25");
  });

  it("a 2025 session's form elicitation reaches it", async () => {
    const c = await session({ elicitation: { form: {} } });
    c.setRequestHandler(ElicitRequestSchema, () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    assert.equal(textOf(await c.callTool({ name: "dual__ask", arguments: {} })), "hello Ada");
  });

  it("two sessions' calls in flight at once: each gets its own sampling and elicitation", () =>
    twoAtOnce(session, "dual"));

  it("subscribe → updated → unsubscribe, to the subscribed session only", async () => {
    const a = await session();
    const b = await session();
    assert.equal(a.getServerCapabilities()?.resources?.subscribe, true);
    const heardA: string[] = [];
    const heardB: string[] = [];
    a.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heardA.push(n.params.uri);
    });
    b.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heardB.push(n.params.uri);
    });
    // `b` calls the server too, so both sessions have used the 2025 connection.
    await b.callTool({ name: "dual__era", arguments: {} });
    await a.subscribeResource({ uri: "note://watched" });
    await a.callTool({ name: "dual__touch", arguments: {} });
    await waitFor(() => heardA.length === 1, 5000, "resources/updated");
    assert.deepEqual(heardA, ["note://watched"]);
    // `b` touches too: the update still goes to `a` alone.
    await b.callTool({ name: "dual__touch", arguments: {} });
    await waitFor(() => heardA.length === 2, 5000, "the second resources/updated");
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(heardB, []);
    await a.unsubscribeResource({ uri: "note://watched" });
    await a.callTool({ name: "dual__touch", arguments: {} });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(heardA.length, 2);
  });

  it("the 2025 connection is one, shown on the status page", async () => {
    const c = await session();
    // Every 2025 session of the gateway so far shares one 2025 session upstream.
    assert.equal(textOf(await c.callTool({ name: "dual__sessions", arguments: {} })), "1");
    const s = await (await fetch(`${gw.url}/status.json`)).json() as {
      upstreams: { name: string; legacyConnection?: string | null }[];
    };
    assert.equal(s.upstreams.find((u) => u.name === "dual")?.legacyConnection, "up");
  });

  it("a list change heard on the 2025 connection re-reads the server's catalog", async () => {
    const c = await session();
    await c.callTool({ name: "dual__grow", arguments: {} });
    await waitFor(
      async () => (await c.listTools()).tools.some((t) => t.name === "dual__grown"),
      5000,
      "dual__grown listed",
    );
  });

  it("a 2026-07-28 client keeps the modern connection", async () => {
    const v2 = new V2Client({ name: "modern-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await v2.connect(new V2Transport(new URL(`${gw.url}/mcp`)));
    open.push(v2);
    const r = await v2.callTool({ name: "dual__era", arguments: {} });
    assert.equal(textOf(r), "2026-07-28");
  });
});

describe("2025 sessions sharing a 2025 streamable HTTP upstream", () => {
  let gw: TestGateway;
  let server: ChildProcess | undefined;
  const open: { close(): Promise<void> }[] = [];
  before(async () => {
    const started = await httpFixture();
    server = started.child;
    gw = await startTestGateway(`
servers:
  old: { url: "http://127.0.0.1:${started.port}/mcp", protocol: legacy }
`);
  });
  after(async () => {
    for (const c of open) await c.close().catch(() => {});
    await gw?.stop();
    if (server?.pid) process.kill(server.pid, "SIGKILL");
  });

  it("two sessions' calls in flight at once: each gets its own sampling and elicitation", () =>
    twoAtOnce(async (capabilities) => {
      const c = await httpClient(gw.url, capabilities);
      open.push(c);
      return c;
    }, "old"));
});

// `stateless`: the server answers `initialize` but holds no 2025 session (the SDK v2 server's
// default fallback), so it can carry neither its own requests nor subscriptions in 2025.
for (const legacy of ["reject", "stateless"]) {
  describe(`a 2025 session behind a 2026-07-28 upstream whose 2025 path is ${legacy}`, () => {
    let gw: TestGateway;
    let server: ChildProcess | undefined;
    const open: { close(): Promise<void> }[] = [];
    before(async () => {
      const started = await httpFixture("modern.mjs", legacy);
      server = started.child;
      gw = await startTestGateway(`
servers:
  modern: { url: "http://127.0.0.1:${started.port}/mcp" }
`);
    });
    after(async () => {
      for (const c of open) await c.close().catch(() => {});
      await gw?.stop();
      if (server?.pid) process.kill(server.pid, "SIGKILL");
    });

    it("stays on the modern connection, its rounds relayed, no second connection", async () => {
      for (let i = 0; i < 2; i++) {
        const c = await httpClient(gw.url, { sampling: {} });
        open.push(c);
        c.setRequestHandler(CreateMessageRequestSchema, () => ({
          role: "assistant",
          model: "test",
          content: { type: "text", text: "hi there" },
        }));
        const r = await c.callTool({ name: "modern__ask_model", arguments: {} });
        assert.equal(textOf(r), "model said hi there");
        assert.equal(
          textOf(await c.callTool({ name: "modern__era", arguments: {} })),
          "2026-07-28",
        );
      }
      const s = await (await fetch(`${gw.url}/status.json`)).json() as {
        upstreams: { name: string; protocol: string; legacyConnection: string | null }[];
      };
      const row = s.upstreams.find((u) => u.name === "modern");
      assert.equal(row?.protocol, "modern");
      assert.equal(row?.legacyConnection, null);
    });
  });
}
