/**
 * Upstreams of both protocol eras behind one gateway: `protocol: auto` negotiates 2026-07-28 with
 * a v2 server that speaks nothing else and the 2025 protocol with a 1.x server; `protocol:
 * modern` against a 2025-only server fails naming the server and the setting. A 1.x client
 * session and a v2 client pinned to 2026-07-28 both list and call the modern upstream's tools,
 * its `input_required` rounds reach a 2025 session as ordinary elicitation and sampling
 * requests, and per-token scopes still apply.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  fixture,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";

const MODERN = "2026-07-28";
const TOKEN_A = "token-a-0123456789abcdef";
const TOKEN_B = "token-b-0123456789abcdef";

const SPAWNS = join(mkdtempSync(join(tmpdir(), "mcpgw-spawns-")), "spawns");

const YAML = `
gateway:
  auth:
    tokens:
      - { name: a, token: ${TOKEN_A}, admin: true }
      - { name: b, token: ${TOKEN_B}, tools: ["modern__echo"] }
servers:
  modern: ${nodeServer("modern.mjs")}
  echo: ${nodeServer("echo.mjs")}
  pinned: ${nodeServer("echo.mjs", "protocol: modern, restart: { maxRestarts: 0 }")}
  quiet: ${
  nodeServer(
    "silent-probe.mjs",
    `connectTimeout: 9s, env: { SPAWNS_FILE: ${JSON.stringify(SPAWNS)} }`,
  )
}
`;

async function legacyClient(url: string, token: string, capabilities = {}): Promise<Client> {
  const client = new Client({ name: "legacy-test", version: "1.0.0" }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function modernClient(url: string, token: string): Promise<V2Client> {
  const client = new V2Client({ name: "modern-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: MODERN } },
  });
  await client.connect(
    new V2Transport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

interface Status {
  upstreams: { name: string; state: string; protocol: string | null; lastError: string | null }[];
}

async function status(gw: TestGateway): Promise<Status> {
  const res = await fetch(`${gw.url}/status.json`, {
    headers: { authorization: `Bearer ${TOKEN_A}` },
  });
  return await res.json() as Status;
}

describe("upstream protocol eras over stdio", () => {
  let gw: TestGateway;
  const open: { close(): Promise<unknown> }[] = [];
  before(async () => {
    gw = await startTestGateway(YAML);
    await waitFor(
      async () => {
        const s = await status(gw);
        return s.upstreams.every((u) => u.state === "up" || u.state === "down");
      },
      30_000,
      "every upstream settled",
    );
  });
  after(async () => {
    for (const c of open) await c.close().catch(() => {});
    await gw?.stop();
  });

  it("auto negotiates 2026-07-28 with a v2-only server and 2025 with a 1.x server", async () => {
    const s = await status(gw);
    const byName = new Map(s.upstreams.map((u) => [u.name, u]));
    assert.equal(byName.get("modern")?.state, "up");
    assert.equal(byName.get("modern")?.protocol, "modern");
    assert.equal(byName.get("echo")?.state, "up");
    assert.equal(byName.get("echo")?.protocol, "legacy");
    const page = await (await fetch(`${gw.url}/`, {
      headers: { authorization: `Bearer ${TOKEN_A}` },
    })).text();
    assert.match(page, /<tr data-server="modern">[\s\S]*?stdio · modern<\/td>/);
    assert.match(page, /<tr data-server="echo">[\s\S]*?stdio · legacy<\/td>/);
  });

  it("auto takes a 2025 server that never answers the probe as 2025, on the same process", async () => {
    const quiet = (await status(gw)).upstreams.find((u) => u.name === "quiet");
    assert.equal(quiet?.state, "up", `quiet is ${quiet?.state}: ${quiet?.lastError}`);
    assert.equal(quiet?.protocol, "legacy");
    const client = await legacyClient(gw.url, TOKEN_A);
    open.push(client);
    assert.equal(textOf(await client.callTool({ name: "quiet__hello", arguments: {} })), "hello");
    assert.equal(readFileSync(SPAWNS, "utf8").trim().split("\n").length, 1, "one process");
  });

  it("protocol: modern against a 2025-only server fails naming the server and the setting", async () => {
    const pinned = (await status(gw)).upstreams.find((u) => u.name === "pinned");
    assert.equal(pinned?.state, "down");
    assert.match(
      pinned?.lastError ?? "",
      /server "pinned" does not offer protocol revision 2026-07-28/,
    );
    assert.match(pinned?.lastError ?? "", /servers\.pinned\.protocol is modern/);
  });

  it("a 1.x client session lists and calls the modern upstream's tools", async () => {
    const client = await legacyClient(gw.url, TOKEN_A);
    open.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("modern__echo"), names.join(","));
    assert.ok(names.includes("echo__echo"), names.join(","));
    const r = await client.callTool({ name: "modern__echo", arguments: { text: "hi" } });
    assert.equal(textOf(r), JSON.stringify({ text: "hi" }));
    const era = await client.callTool({ name: "modern__era", arguments: {} });
    assert.equal(textOf(era), MODERN, "the upstream got the call on the 2026-07-28 wire");
  });

  it("a v2 client pinned to 2026-07-28 lists and calls the modern upstream's tools", async () => {
    const client = await modernClient(gw.url, TOKEN_A);
    open.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("modern__echo"), names.join(","));
    const r = await client.callTool({ name: "modern__echo", arguments: { text: "v2" } });
    assert.equal(textOf(r), JSON.stringify({ text: "v2" }));
    const legacy = await client.callTool({ name: "echo__echo", arguments: { text: "old" } });
    assert.match(textOf(legacy), /old/);
  });

  it("an upstream elicitation round reaches a 2025 session as elicitation/create", async () => {
    const client = await legacyClient(gw.url, TOKEN_A, { elicitation: {} });
    open.push(client);
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(String(req.params.message));
      return { action: "accept", content: { name: "Ada" } };
    });
    const r = await client.callTool({ name: "modern__ask_name", arguments: {} });
    assert.deepEqual(asked, ["What is your name?"]);
    assert.equal(textOf(r), "hello Ada");
  });

  it("concurrent sessions' rounds on one shared modern upstream each reach their own session", async () => {
    // Both sessions' elicitations are held until both arrived: the two calls are in flight on
    // the shared process at once, and each round still goes to the session whose call it is.
    let arrived = 0;
    let release!: () => void;
    const both = new Promise<void>((r) => (release = r));
    const sessions = await Promise.all(["Ada", "Bob"].map(async (name) => {
      const client = await legacyClient(gw.url, TOKEN_A, { elicitation: {} });
      open.push(client);
      client.setRequestHandler(ElicitRequestSchema, async () => {
        if (++arrived === 2) release();
        await both;
        return { action: "accept", content: { name } };
      });
      return client;
    }));
    const results = await Promise.all(
      sessions.map((c) => c.callTool({ name: "modern__ask_name", arguments: {} })),
    );
    assert.deepEqual(results.map(textOf), ["hello Ada", "hello Bob"]);
  });

  it("an upstream sampling round reaches a 2025 session as sampling/createMessage", async () => {
    const client = await legacyClient(gw.url, TOKEN_A, { sampling: {} });
    open.push(client);
    let asked = 0;
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      asked++;
      return { role: "assistant", model: "test", content: { type: "text", text: "hi there" } };
    });
    const r = await client.callTool({ name: "modern__ask_model", arguments: {} });
    assert.equal(asked, 1);
    assert.equal(textOf(r), "model said hi there");
  });

  it("an upstream elicitation round reaches a 2026-07-28 client as its own round", async () => {
    const client = new V2Client({ name: "modern-test", version: "1.0.0" }, {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: { pin: MODERN } },
    });
    client.setRequestHandler("elicitation/create", () => ({
      action: "accept",
      content: { name: "Grace" },
    }));
    await client.connect(
      new V2Transport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
      }),
    );
    open.push(client);
    const r = await client.callTool({ name: "modern__ask_name", arguments: {} });
    assert.equal(textOf(r), "hello Grace");
  });

  it("per-token scopes apply to a modern upstream's tools on both eras", async () => {
    const legacy = await legacyClient(gw.url, TOKEN_B);
    const modern = await modernClient(gw.url, TOKEN_B);
    open.push(legacy, modern);
    for (const client of [legacy, modern]) {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names, ["modern__echo"]);
      await assert.rejects(
        client.callTool({ name: "modern__ask_name", arguments: {} }),
        /not allowed for token "b"/,
      );
    }
  });
});

describe("change notifications from a modern upstream", () => {
  it("a tools list_changed heard on subscriptions/listen updates the gateway's catalog", async () => {
    const gw = await startTestGateway(`servers:\n  modern: ${nodeServer("modern.mjs")}\n`);
    const client = await legacyClient(gw.url, "");
    try {
      let told = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        told++;
      });
      const before = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!before.includes("modern__grown"));
      assert.equal(textOf(await client.callTool({ name: "modern__grow", arguments: {} })), "grew");
      await waitFor(
        async () => (await client.listTools()).tools.some((t) => t.name === "modern__grown"),
        10_000,
        "the grown tool to be listed",
      );
      await waitFor(() => told > 0, 5_000, "the session to be told");
      const r = await client.callTool({ name: "modern__grown", arguments: {} });
      assert.equal(textOf(r), "grown");
    } finally {
      await client.close().catch(() => {});
      await gw.stop();
    }
  });
});

describe("era verdicts", () => {
  it("a modern verdict is kept: each session process of an isolated server skips the probe", async () => {
    const discovers = join(mkdtempSync(join(tmpdir(), "mcpgw-discovers-")), "discovers");
    const gw = await startTestGateway(`
servers:
  iso: ${
      nodeServer(
        "modern.mjs",
        `isolation: session, env: { DISCOVERS_FILE: ${JSON.stringify(discovers)} }`,
      )
    }
`);
    const clients: Client[] = [];
    try {
      await waitFor(
        async () => {
          const s = await (await fetch(`${gw.url}/status.json`)).json() as Status;
          return s.upstreams[0]?.protocol === "modern";
        },
        15_000,
        "the shared process to come up modern",
      );
      for (let i = 0; i < 2; i++) {
        const client = await legacyClient(gw.url, "");
        clients.push(client);
        const r = await client.callTool({ name: "iso__echo", arguments: { text: `s${i}` } });
        assert.equal(textOf(r), JSON.stringify({ text: `s${i}` }));
      }
      const probes = readFileSync(discovers, "utf8").trim().split("\n");
      assert.equal(probes.length, 1, "only the first process was probed");
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await gw.stop();
    }
  });
});

describe("upstream protocol eras over streamable HTTP", () => {
  let server: ReturnType<typeof spawn> | undefined;
  let gw: TestGateway | undefined;
  before(async () => {
    server = spawn("node", [fixture("modern.mjs")], {
      env: { ...process.env, MODERN_HTTP: "1", PORT: "0" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      server!.stdout!.on("data", (b: Buffer) => {
        out += b.toString();
        const m = /PORT=(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      server!.once("exit", () => reject(new Error("the fixture exited")));
    });
    gw = await startTestGateway(
      `servers:\n  remote: { url: "http://127.0.0.1:${port}/mcp", protocol: modern }\n`,
    );
  });
  after(async () => {
    await gw?.stop();
    if (server?.pid) process.kill(server.pid, "SIGKILL");
  });

  it("a modern HTTP upstream is called statelessly by a 1.x client session", async () => {
    const client = await legacyClient(gw!.url, "");
    try {
      await waitFor(async () => (await client.listTools()).tools.length > 0, 10_000, "tools");
      const r = await client.callTool({ name: "remote__era", arguments: {} });
      assert.equal(textOf(r), MODERN);
      const s = await (await fetch(`${gw!.url}/status.json`)).json() as Status;
      assert.equal(s.upstreams[0]?.protocol, "modern");
    } finally {
      await client.close();
    }
  });
});
