/**
 * `tools/list` served from the lists prepared per view: the fast path answers byte for byte as
 * the SDK session server does; each owner (token globs, profile, Apps or not) gets its own
 * view's list, never another's — whatever order they list in and whichever cursor they send;
 * a catalog change replaces every prepared list, and the lists clients used are prepared again
 * before they ask; a page at a cursor nobody was handed is answered and not kept.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Caller } from "../../src/gateway/mod.ts";
import { PreparedList } from "../../src/gateway/prepared-lists.ts";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";

const WIDE = "wide-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";

/** Opens a 2025 session as `token` (`capabilities`: the client's); its id. */
function session(url: string, token: string, capabilities: object = {}): Promise<string> {
  return openSession(url, token ? { authorization: `Bearer ${token}` } : {}, { capabilities });
}

/** The JSON-RPC messages of one POST's answer, as sent. */
async function post(url: string, token: string, sid: string, body: unknown): Promise<string[]> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, "mcp-session-id": sid },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.headers.get("content-type")?.startsWith("application/json")) return [text];
  return text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
}

async function names(url: string, token: string, sid: string, params = {}): Promise<string[]> {
  const [answer] = await post(url, token, sid, {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/list",
    params,
  });
  return (JSON.parse(answer!).result.tools as { name: string }[]).map((t) => t.name);
}

describe("tools/list from prepared lists", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth:
    tokens:
      - { name: wide, token: "${WIDE}" }
      - { name: narrow, token: "${NARROW}", tools: ["shared__*"] }
servers:
  hidden: ${nodeServer("changing.mjs")}
  shared: ${nodeServer("changing.mjs")}
  apps: ${nodeServer("apps.mjs")}
`);
  });
  after(() => gw?.stop());

  it("the fast path answers as the SDK session server does (a one-item batch goes there)", async () => {
    const sid = await session(gw.url, WIDE);
    const plain = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${WIDE}`, "mcp-session-id": sid },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    await plain.body?.cancel();
    // The SDK's transport answers with an event stream; plain JSON is the fast path's.
    assert.equal(plain.headers.get("content-type"), "application/json");
    for (const params of [{}, { cursor: btoa("1") }, { cursor: "not a cursor" }]) {
      const request = { jsonrpc: "2.0", id: 3, method: "tools/list", params };
      const fast = await post(gw.url, WIDE, sid, request);
      const sdk = await post(gw.url, WIDE, sid, [request]);
      assert.deepEqual(fast, sdk, JSON.stringify(params));
    }
  });

  it("a page served many times at once is the whole prepared page each time", async () => {
    const sid = await session(gw.url, WIDE);
    const request = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(gw.url, WIDE, sid, request(i))),
    );
    const [first] = await post(gw.url, WIDE, sid, [request(0)]);
    const expected = JSON.parse(first!);
    answers.forEach(([answer], i) => assert.deepEqual(JSON.parse(answer!), { ...expected, id: i }));
  });

  it("owners with different views never get each other's list", async () => {
    const narrow = await session(gw.url, NARROW);
    const wide = await session(gw.url, WIDE);
    const apps = await session(gw.url, WIDE, {
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
    });
    // The narrow owner lists first, so its list is the one prepared when the others ask.
    const first = await names(gw.url, NARROW, narrow);
    const wideNames = await names(gw.url, WIDE, wide);
    const appsNames = await names(gw.url, WIDE, apps);
    const again = await names(gw.url, NARROW, narrow, { cursor: btoa("0") });
    assert.ok(first.length > 0 && first.every((n) => n.startsWith("shared__")), first.join());
    assert.deepEqual(again, first);
    assert.ok(wideNames.some((n) => n.startsWith("hidden__")), wideNames.join());
    // View-only tools go to the host that declared the Apps extension only.
    const viewOnly = appsNames.filter((n) => !wideNames.includes(n));
    assert.ok(viewOnly.length > 0, appsNames.join());
    assert.ok(wideNames.every((n) => appsNames.includes(n)));
    // In-process, too: each owner's prepared list is its own object.
    const g = gw.running.gateway;
    const caller = (tokenName: string, toolGlobs: string[] | null): Caller => ({
      sessionId: null,
      tokenName,
      toolGlobs,
      profile: null,
    });
    const a = g.preparedList(caller("narrow", ["shared__*"]));
    const b = g.preparedList(caller("wide", null));
    assert.notEqual(a, b);
    const text = new TextDecoder().decode(a.pageBytes(undefined, 1000));
    assert.ok(text.includes("shared__") && !text.includes("hidden__"), text);
    assert.notEqual(a.digest, b.digest);
    assert.equal(g.preparedList(caller("narrow", ["shared__*"])), a);
  });

  /**
   * A narrow owner's session and its list, then a change of the catalog: the shared server adds
   * a tool (called by the wide owner).
   */
  async function listThenChange(): Promise<{ sid: string; before: string[] }> {
    const sid = await session(gw.url, NARROW);
    const before = await names(gw.url, NARROW, sid);
    const wide = await session(gw.url, WIDE);
    await post(gw.url, WIDE, wide, {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "shared__add_tool", arguments: {} },
    });
    return { sid, before };
  }

  it("a catalog change replaces the prepared lists", async () => {
    const { sid, before } = await listThenChange();
    await waitFor(
      async () => (await names(gw.url, NARROW, sid)).length === before.length + 1,
      10_000,
      "the narrow owner's list after the change",
    );
    assert.ok(!(await names(gw.url, NARROW, sid)).some((n) => n.startsWith("hidden__")));
  });

  it("after a catalog change, the lists clients used are prepared before they ask again", async () => {
    const { sid, before } = await listThenChange();
    // Read in process, without listing over HTTP: the page is there before any client asks.
    const narrow: Caller = {
      sessionId: null,
      tokenName: "narrow",
      toolGlobs: ["shared__*"],
      profile: null,
    };
    const list = await waitFor(
      () => {
        const l = gw.running.gateway.preparedList(narrow);
        return l.tools.length === before.length + 1 && l.keptPages === 1 ? l : undefined;
      },
      10_000,
      "the narrow owner's new list, its page prepared",
    );
    const page = JSON.parse(new TextDecoder().decode(list!.pageBytes(undefined, 1000)));
    assert.deepEqual(
      page.tools.map((t: { name: string }) => t.name),
      await names(gw.url, NARROW, sid),
    );
  });
});

describe("a prepared list's pages", () => {
  const tools = Array.from({ length: 5 }, (_, i) => ({
    name: `t${i}`,
    inputSchema: { type: "object" as const },
  }));

  it("are the page's JSON, and only the pages of handed-out cursors are kept", () => {
    const list = new PreparedList(tools);
    const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));
    const first = list.pageBytes(undefined, 2);
    assert.deepEqual(json(first), { tools: tools.slice(0, 2), nextCursor: btoa("2") });
    assert.equal(list.pageBytes(undefined, 2), first);
    assert.equal(list.pageBytes(btoa("2"), 2), list.pageBytes(btoa("2"), 2));
    assert.deepEqual(json(list.pageBytes(btoa("4"), 2)), { tools: tools.slice(4) });
    // An offset no cursor of ours names (1) is answered afresh each time.
    const odd = list.pageBytes(btoa("1"), 2);
    assert.deepEqual(json(odd).tools.map((t: { name: string }) => t.name), ["t1", "t2"]);
    assert.notEqual(list.pageBytes(btoa("1"), 2), odd);
    assert.equal(list.digest, new PreparedList([...tools]).digest);
    assert.notEqual(list.digest, new PreparedList(tools.slice(1)).digest);
  });
});
