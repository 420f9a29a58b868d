/**
 * A 2025 client session (the 1.x SDK client) behind a 2026-07-28 upstream (the v2-only fixture
 * `modern.mjs`), over stdio and over streamable HTTP: what the upstream asks through
 * `input_required` rounds (sampling, form and URL elicitation, roots) reaches the session as
 * ordinary server-to-client requests; `logging/setLevel` rides each request's envelope and the
 * upstream's log messages reach the session; `resources/subscribe` is carried by a
 * `subscriptions/listen` stream and `resources/updated` reaches the subscribed session only;
 * progress and cancellation work in the middle of a call.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  fixture,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";

/** The modern fixture over HTTP; resolves its port once it listens. */
function modernHttp(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn("node", [fixture("modern.mjs")], {
    env: { ...process.env, MODERN_HTTP: "1", PORT: "0" },
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

async function session(url: string, capabilities = {}): Promise<Client> {
  const client = new Client({ name: "legacy-test", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

for (const via of ["stdio", "http"] as const) {
  describe(`a 2025 session behind a 2026-07-28 upstream over ${via}`, () => {
    let gw: TestGateway;
    let http: ChildProcess | undefined;
    const open: Client[] = [];
    before(async () => {
      let modern = nodeServer("modern.mjs", "protocol: modern");
      if (via === "http") {
        const started = await modernHttp();
        http = started.child;
        modern = `{ url: "http://127.0.0.1:${started.port}/mcp", protocol: modern }`;
      }
      gw = await startTestGateway(`
servers:
  modern: ${modern}
  own: ${nodeServer("modern.mjs", "protocol: modern, isolation: session, roots: client")}
`);
    });
    after(async () => {
      for (const c of open) await c.close().catch(() => {});
      await gw?.stop();
      if (http?.pid) process.kill(http.pid, "SIGKILL");
    });

    async function client(capabilities = {}): Promise<Client> {
      const c = await session(gw.url, capabilities);
      open.push(c);
      return c;
    }

    it("a sampling round reaches the session as sampling/createMessage", async () => {
      const c = await client({ sampling: {} });
      c.setRequestHandler(CreateMessageRequestSchema, () => ({
        role: "assistant",
        model: "test",
        content: { type: "text", text: "hi there" },
      }));
      const r = await c.callTool({ name: "modern__ask_model", arguments: {} });
      assert.equal(textOf(r), "model said hi there");
    });

    it("form and URL elicitation rounds reach the session as elicitation/create", async () => {
      const c = await client({ elicitation: { form: {}, url: {} } });
      const modes: string[] = [];
      c.setRequestHandler(ElicitRequestSchema, (req) => {
        modes.push(String(req.params.mode ?? "form"));
        if (req.params.mode === "url") {
          assert.equal(req.params.url, "https://example.com/consent");
          return { action: "accept" };
        }
        return { action: "accept", content: { name: "Ada" } };
      });
      assert.equal(
        textOf(await c.callTool({ name: "modern__ask_name", arguments: {} })),
        "hello Ada",
      );
      assert.equal(
        textOf(await c.callTool({ name: "modern__ask_url", arguments: {} })),
        "visit accept",
      );
      assert.deepEqual(modes, ["form", "url"]);
    });

    it("a roots round reaches the session as roots/list", async () => {
      const c = await client({ roots: {} });
      c.setRequestHandler(ListRootsRequestSchema, () => ({
        roots: [{ uri: "file:///work/project", name: "project" }],
      }));
      const r = await c.callTool({ name: "own__ask_roots", arguments: {} });
      assert.equal(textOf(r), "file:///work/project");
    });

    it("the session's log level reaches the upstream and its log messages reach the session", async () => {
      const c = await client();
      const logs: unknown[] = [];
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      await c.setLoggingLevel("info");
      assert.equal(textOf(await c.callTool({ name: "modern__say", arguments: {} })), "said");
      await waitFor(() => logs.length > 0, 5_000, "a log message");
      assert.deepEqual(logs[0], { level: "info", data: "said from modern", logger: "modern" });
    });

    it("resources/updated reaches the subscribed session only", async () => {
      const subscribed = await client();
      assert.equal(subscribed.getServerCapabilities()?.resources?.subscribe, true);
      const other = await client();
      const heard = { subscribed: [] as string[], other: [] as string[] };
      subscribed.setNotificationHandler(
        ResourceUpdatedNotificationSchema,
        (n) => void heard.subscribed.push(n.params.uri),
      );
      other.setNotificationHandler(
        ResourceUpdatedNotificationSchema,
        (n) => void heard.other.push(n.params.uri),
      );
      await subscribed.subscribeResource({ uri: "note://watched" });
      await other.callTool({ name: "modern__touch", arguments: {} });
      await waitFor(() => heard.subscribed.length > 0, 5_000, "resources/updated");
      assert.equal(heard.subscribed[0], "note://watched");
      assert.deepEqual(heard.other, []);

      await subscribed.unsubscribeResource({ uri: "note://watched" });
      const before = heard.subscribed.length;
      await other.callTool({ name: "modern__touch", arguments: {} });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(heard.subscribed.length, before, "no update after unsubscribing");
    });

    it("progress arrives mid-call and cancelling the call cancels it upstream", async () => {
      const c = await client();
      const progress: number[] = [];
      const abort = new AbortController();
      const call = c.callTool({ name: "modern__slow", arguments: {} }, undefined, {
        signal: abort.signal,
        onprogress: (p) => {
          progress.push(p.progress);
          abort.abort("enough");
        },
      });
      await assert.rejects(call);
      assert.deepEqual(progress, [1]);
      await waitFor(
        async () => textOf(await c.callTool({ name: "modern__cancelled", arguments: {} })) === "1",
        5_000,
        "the upstream saw the cancellation",
      );
    });
  });
}

describe("resources.subscribe is advertised only while some upstream carries subscriptions", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
  });
  after(() => gw?.stop());

  it("a gateway whose upstreams offer none advertises none, on both eras", async () => {
    const c = await session(gw.url);
    try {
      assert.deepEqual(c.getServerCapabilities()?.resources, { listChanged: true });
    } finally {
      await c.close();
    }
    const v2 = new V2Client({ name: "modern-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await v2.connect(new V2Transport(new URL(`${gw.url}/mcp`)));
    try {
      assert.equal(v2.getServerCapabilities()?.resources?.subscribe, undefined);
    } finally {
      await v2.close();
    }
  });
});
