/**
 * Roots never cross sessions. The attack: a token allowed one harmless tool answered roots with
 * `file:///`, the gateway passed that to a shared filesystem server, and every session could
 * then read anything. Here real clients with two tokens try it over HTTP: a shared server gets no
 * client's roots (during a call, outside a call, or by `roots/list_changed`), a fixed `roots:`
 * list is answered by the gateway, and `isolation: session` gives each session a process of its
 * own that sees only its own roots and stops with the session. Config rules: roots-config.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  nodeServer,
  ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { bearer } from "./_http.ts";

const FULL = "roots-full-token-0123456789abcdef";
const NARROW = "roots-narrow-token-0123456789abcdef";

const AUTH = `
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}" }
      - { name: narrow, token: "${NARROW}", tools: ["shared__roots", "isolated__*"] }
`;

/** A client over HTTP with `token` that declares roots and answers them with `roots`. */
export async function rootsClient(base: string, token: string, roots: string[]) {
  const client = new Client({ name: "roots-test", version: "1.0.0" }, {
    capabilities: { roots: { listChanged: true } },
  });
  const state = { roots, asked: 0 };
  client.setRequestHandler(ListRootsRequestSchema, () => {
    state.asked++;
    return { roots: state.roots.map((uri) => ({ uri })) };
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: bearer(token) },
  });
  await client.connect(transport);
  return { client, state, end: () => transport.terminateSession().then(() => client.close()) };
}

async function call(client: Client, name: string): Promise<{ text: string; isError: boolean }> {
  const r = await client.callTool({ name, arguments: {} });
  return { text: textOf(r), isError: r.isError === true };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("roots and shared upstreams", () => {
  let gw: TestGateway;
  let narrow: Awaited<ReturnType<typeof rootsClient>>;
  let full: Awaited<ReturnType<typeof rootsClient>>;
  before(async () => {
    gw = await startTestGateway(`${AUTH}
servers:
  shared: ${nodeServer("roots.mjs")}
  fixed: ${nodeServer("roots.mjs", `roots: ["file:///srv/data", { uri: ./data, name: data }]`)}
`);
    narrow = await rootsClient(gw.url, NARROW, ["file:///"]);
    full = await rootsClient(gw.url, FULL, ["file:///home/full"]);
  });
  after(async () => {
    await narrow?.client.close();
    await full?.client.close();
    await gw?.stop();
  });

  it("does not offer the roots capability to a server without roots:", async () => {
    assert.doesNotMatch((await call(full.client, "shared__capabilities")).text, /roots/);
    assert.equal((await call(full.client, "shared__initial_roots")).text, "not offered");
  });

  it("refuses roots/list a shared server sends during a narrow token's call", async () => {
    const r = await call(narrow.client, "shared__roots");
    assert.match(r.text, /^error -32601: .*Method not found/);
    assert.doesNotMatch(r.text, /file:\/\/\//);
    assert.equal(narrow.state.asked, 0);
  });

  it("refuses roots/list a shared server sends outside any call", async () => {
    await call(full.client, "shared__roots_later");
    const last = await waitFor(
      async () => {
        const t = (await call(full.client, "shared__last_roots")).text;
        return t === "none" ? undefined : t;
      },
      10_000,
      "the late roots/list",
    );
    assert.match(String(last), /^error -32601: .*Method not found/);
    assert.equal(narrow.state.asked + full.state.asked, 0);
  });

  it("never forwards a client's roots/list_changed to a shared server", async () => {
    await narrow.client.sendRootsListChanged();
    await full.client.sendRootsListChanged();
    // A forwarded notification would arrive within milliseconds; give it ample time to show.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await call(full.client, "shared__roots_changed")).text, "0");
    assert.equal((await call(full.client, "fixed__roots_changed")).text, "0");
    assert.equal(narrow.state.asked + full.state.asked, 0);
  });

  it("answers roots/list of a server with a fixed roots: list from the config", async () => {
    const dataUri = pathToFileURL(join(gw.dir, "data")).href;
    const expected = JSON.stringify({
      roots: [{ uri: "file:///srv/data" }, { uri: dataUri, name: "data" }],
    });
    assert.match((await call(full.client, "fixed__capabilities")).text, /"roots":\{\}/);
    assert.equal((await call(full.client, "fixed__roots")).text, expected);
    assert.equal((await call(full.client, "fixed__initial_roots")).text, expected);
    await call(full.client, "fixed__roots_later");
    await waitFor(
      async () => (await call(full.client, "fixed__last_roots")).text === expected,
      10_000,
      "the late roots/list answered from the config",
    );
    assert.equal(narrow.state.asked + full.state.asked, 0);
  });
});

describe("roots with isolation: session", () => {
  let gw: TestGateway;
  let a: Awaited<ReturnType<typeof rootsClient>>;
  let b: Awaited<ReturnType<typeof rootsClient>>;
  const pids = { a: 0, b: 0 };
  before(async () => {
    gw = await startTestGateway(`${AUTH}
servers:
  isolated: ${nodeServer("roots.mjs", "isolation: session, roots: client, maxSessions: 2")}
`);
    a = await rootsClient(gw.url, FULL, ["file:///home/a"]);
    b = await rootsClient(gw.url, NARROW, ["file:///"]);
  });
  after(async () => {
    await a?.client.close();
    await b?.client.close();
    await gw?.stop();
  });

  it("starts one process per session, each seeing only its own session's roots", async () => {
    assert.equal(
      (await call(a.client, "isolated__roots")).text,
      JSON.stringify({ roots: [{ uri: "file:///home/a" }] }),
    );
    assert.equal(
      (await call(b.client, "isolated__roots")).text,
      JSON.stringify({ roots: [{ uri: "file:///" }] }),
    );
    pids.a = Number((await call(a.client, "isolated__pid")).text);
    pids.b = Number((await call(b.client, "isolated__pid")).text);
    assert.ok(pids.a > 0 && pids.b > 0);
    assert.notEqual(pids.a, pids.b);
    assert.equal(Number((await call(a.client, "isolated__pid")).text), pids.a);
    assert.equal(gw.running.gateway.pool.isolated.count("isolated"), 2);
    // Roots asked right after initialize went to the owner too.
    assert.match((await call(a.client, "isolated__initial_roots")).text, /file:\/\/\/home\/a"/);
  });

  it("forwards roots/list_changed only to the session's own process", async () => {
    a.state.roots = ["file:///home/a2"];
    const askedB = b.state.asked;
    await a.client.sendRootsListChanged();
    await waitFor(
      async () => (await call(a.client, "isolated__last_roots")).text.includes("file:///home/a2"),
      10_000,
      "a's process to re-read its roots",
    );
    assert.equal((await call(a.client, "isolated__roots_changed")).text, "1");
    assert.equal((await call(b.client, "isolated__roots_changed")).text, "0");
    assert.equal((await call(b.client, "isolated__last_roots")).text, "none");
    assert.equal(b.state.asked, askedB);
  });

  it("refuses a session beyond maxSessions with a clear error", async () => {
    const c = await rootsClient(gw.url, FULL, ["file:///home/c"]);
    try {
      const r = await call(c.client, "isolated__pid");
      assert.equal(r.isError, true);
      assert.match(r.text, /already runs 2 session processes \(maxSessions: 2\)/);
      assert.equal(c.state.asked, 0);
    } finally {
      await c.client.close();
    }
  });

  it("stops a session's process when the session closes", async () => {
    assert.ok(isAlive(pids.a));
    await a.end();
    await waitFor(() => !isAlive(pids.a), 10_000, "a's process to exit");
    assert.ok(isAlive(pids.b));
    await waitFor(
      () => gw.running.gateway.pool.isolated.count("isolated") === 1,
      5000,
      "the closed session's process to be forgotten",
    );
  });

  it("stops every session process when the gateway stops", async () => {
    await gw.stop();
    await waitFor(() => !isAlive(pids.b), 5000, "b's process to exit");
  });
});

describe("the reported attack on a shared server-filesystem", () => {
  let gw: TestGateway;
  let narrow: Awaited<ReturnType<typeof rootsClient>>;
  const allowed = mkdtempSync(join(tmpdir(), "mcpgw-roots-allowed-"));
  writeFileSync(join(allowed, "note.txt"), "allowed content");
  before(async () => {
    const bin = JSON.stringify(join(ROOT, "node_modules/.bin/mcp-server-filesystem"));
    gw = await startTestGateway(`${AUTH.replace('"isolated__*"', '"files__read_text_file"')}
servers:
  files: { command: ${bin}, args: [${JSON.stringify(allowed)}], timeout: 30s }
`);
    narrow = await rootsClient(gw.url, NARROW, ["file:///"]);
  });
  after(async () => {
    await narrow?.client.close();
    await gw?.stop();
  });

  it("keeps the folders of its arguments when a narrow token answers roots with file:///", async () => {
    await narrow.client.sendRootsListChanged();
    await new Promise((r) => setTimeout(r, 300));
    const ok = await narrow.client.callTool({
      name: "files__read_text_file",
      arguments: { path: join(allowed, "note.txt") },
    });
    assert.equal(textOf(ok), "allowed content");
    const stolen = await narrow.client.callTool({
      name: "files__read_text_file",
      arguments: { path: join(gw.dir, "gateway.yaml") },
    });
    assert.equal(stolen.isError, true);
    assert.doesNotMatch(textOf(stolen), /tokens/);
    assert.match(textOf(stolen), /outside allowed directories/);
    assert.equal(narrow.state.asked, 0);
  });
});
