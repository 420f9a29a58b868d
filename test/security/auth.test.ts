import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallRecord } from "../../src/gateway/mod.ts";
import { setLogLevel, setLogSink } from "../../src/shared/log.ts";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import {
  authedHttpClient,
  authedSseClient,
  bearer,
  MCP_HEADERS,
  openSession,
  ping,
} from "./_http.ts";

const FULL = "full-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";
process.env.MCPGW_TEST_NARROW_TOKEN = NARROW;

const YAML = `
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}", admin: true }
      - name: narrow
        token: \${MCPGW_TEST_NARROW_TOKEN}
        tools: ["echo__echo", "prompts__greet", "tool_search"]
servers:
  echo: ${nodeServer("echo.mjs", "tools: { overrides: { structured: { discoverable: true } } }")}
  prompts: ${nodeServer("prompts.mjs")}
`;

describe("bearer-token auth and per-token scopes", () => {
  let gw: TestGateway;
  let full: Client;
  let narrow: Client;
  before(async () => {
    gw = await startTestGateway(YAML);
    full = await authedHttpClient(gw.url, FULL);
    narrow = await authedHttpClient(gw.url, NARROW);
  });
  after(async () => {
    await full?.close();
    await narrow?.close();
    await gw?.stop();
  });

  it("answers 401 with a Bearer challenge on /mcp, /sse and /message without a token", async () => {
    const requests: [string, RequestInit][] = [
      ["/mcp", { method: "POST", headers: MCP_HEADERS, body: "{}" }],
      ["/sse", { method: "GET" }],
      ["/message?sessionId=x", { method: "POST", headers: MCP_HEADERS, body: "{}" }],
    ];
    for (const [path, init] of requests) {
      const res = await fetch(gw.url + path, init);
      assert.equal(res.status, 401, path);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer realm="mcp-gateway"/, path);
      assert.equal((await res.json()).error.code, "UNAUTHORIZED", path);
    }
  });

  it("answers 401 to an unknown token or a non-Bearer scheme", async () => {
    for (
      const authorization of [
        `Bearer ${FULL}x`,
        `Bearer ${FULL.slice(0, -1)}`,
        `Basic ${btoa(`full:${FULL}`)}`,
        "Bearer",
        `Bearer ${FULL} extra`,
      ]
    ) {
      const res = await fetch(`${gw.url}/mcp`, {
        method: "POST",
        headers: { ...MCP_HEADERS, authorization },
        body: "{}",
      });
      await res.body?.cancel();
      assert.equal(res.status, 401, authorization);
    }
  });

  it("keeps the health probes open without a token", async () => {
    assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
    const ready = await fetch(`${gw.url}/readyz`);
    await ready.body?.cancel();
    assert.notEqual(ready.status, 401);
  });

  it("guards every other route, /metrics and the status page included", async () => {
    for (const path of ["/metrics", "/", "/no-such-route"]) {
      const res = await fetch(gw.url + path);
      await res.body?.cancel();
      assert.equal(res.status, 401, path);
      const ok = await fetch(gw.url + path, { headers: bearer(FULL) });
      await ok.body?.cancel();
      assert.notEqual(ok.status, 401, path);
    }
  });

  it("serves a valid token over streamable HTTP and over SSE", async () => {
    assert.ok((await full.listTools()).tools.some((t) => t.name === "echo__pid"));
    const sse = await authedSseClient(gw.url, FULL);
    try {
      const r = await sse.callTool({ name: "echo__echo", arguments: { text: "sse" } });
      assert.deepEqual(JSON.parse(textOf(r)), { text: "sse" });
    } finally {
      await sse.close();
    }
  });

  it("lists only the tools a token's globs allow", async () => {
    const names = (await narrow.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ["echo__echo", "tool_search"]);
    const all = (await full.listTools()).tools.map((t) => t.name);
    assert.ok(all.includes("echo__pid") && all.includes("prompts__note"));
  });

  it("refuses a call outside a token's globs and runs one inside them", async () => {
    await assert.rejects(
      narrow.callTool({ name: "echo__pid", arguments: {} }),
      (err: Error & { code?: number }) => err.code === -32003 && /not allowed/.test(err.message),
    );
    const r = await narrow.callTool({ name: "echo__echo", arguments: { text: "ok" } });
    assert.deepEqual(JSON.parse(textOf(r)), { text: "ok" });
  });

  it("labels metrics by server and tool, never by token name or value", async () => {
    const text = await (await fetch(`${gw.url}/metrics`, { headers: bearer(FULL) })).text();
    assert.match(text, /mcp_gateway_tool_calls_total\{[^}]*tool="echo__echo"/);
    for (const secret of ['"full"', '"narrow"', FULL, NARROW]) {
      assert.ok(!text.includes(secret), `${secret} in /metrics`);
    }
  });

  it("filters prompts by the token's globs, for listing and for getting", async () => {
    const names = (await narrow.listPrompts()).prompts.map((p) => p.name);
    assert.deepEqual(names, ["prompts__greet"]);
    await assert.rejects(narrow.getPrompt({ name: "prompts__audit" }));
    const got = await narrow.getPrompt({ name: "prompts__greet" });
    assert.equal((got.messages[0]!.content as { text: string }).text, "prompt greet");
  });

  it("keeps tool_search results inside the token's globs", async () => {
    const r = await narrow.callTool({ name: "tool_search", arguments: { query: "echo pid" } });
    const items = (r.structuredContent as { items?: { name: string }[] } | undefined)?.items ??
      JSON.parse(textOf(r)).items as { name: string }[];
    assert.ok(items.length > 0);
    for (const item of items) assert.ok(["echo__echo"].includes(item.name), item.name);
  });

  it("gives search and describe only the tools inside the token's globs", () => {
    const narrowCaller = {
      sessionId: null,
      tokenName: "narrow",
      toolGlobs: ["echo__echo"],
      profile: null,
    };
    const seen = gw.running.gateway.visibleTools(narrowCaller).map((v) => v.tool.name);
    assert.deepEqual(seen, ["echo__echo"]);
  });

  it("refuses a streamable HTTP session to a token other than the one that opened it", async () => {
    const sid = await openSession(gw.url, bearer(FULL));
    assert.equal(await ping(gw.url, sid, bearer(FULL)), 200);
    assert.equal(await ping(gw.url, sid, bearer(NARROW)), 403);
  });

  it("refuses a session's GET stream to another token, which takes nothing from it", async () => {
    const sid = await openSession(gw.url, bearer(FULL));
    const get = (token: string) =>
      fetch(`${gw.url}/mcp`, {
        headers: { accept: "text/event-stream", "mcp-session-id": sid, ...bearer(token) },
      });
    const foreign = await get(NARROW);
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    // The refused GET did not take the session's one stream: its owner opens it.
    const own = await get(FULL);
    assert.equal(own.status, 200);
    const second = await get(FULL);
    assert.equal(second.status, 409);
    await second.body?.cancel();
    await own.body?.cancel();
  });

  it("refuses a legacy SSE session to a token other than the one that opened it", async () => {
    const res = await fetch(`${gw.url}/sse`, { headers: bearer(FULL) });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("sessionId=")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const endpoint = /data: (\S+)/.exec(text)![1]!;
    try {
      const post = (token: string) =>
        fetch(gw.url + endpoint, {
          method: "POST",
          headers: { ...MCP_HEADERS, ...bearer(token) },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        }).then(async (r) => (await r.body?.cancel(), r.status));
      assert.equal(await post(NARROW), 403);
      assert.equal(await post(FULL), 202);
    } finally {
      await reader.cancel();
    }
  });

  it("names the token in call records and logs, never its value", async () => {
    const calls: CallRecord[] = [];
    gw.running.gateway.calls.observeCalls((c) => calls.push(c));
    const lines: string[] = [];
    const restore = setLogSink((line) => lines.push(line));
    setLogLevel("debug");
    try {
      const sid = await openSession(gw.url, bearer(NARROW));
      await ping(gw.url, sid, bearer(FULL));
      await fetch(`${gw.url}/mcp`, { headers: { authorization: `Bearer ${FULL}-wrong` } })
        .then((r) => r.body?.cancel());
      await narrow.callTool({ name: "echo__echo", arguments: {} });
    } finally {
      setLogLevel((process.env.TEST_LOG_LEVEL ?? "silent") as "silent");
      restore();
    }
    assert.equal(calls.at(-1)?.tokenName, "narrow");
    assert.ok(lines.some((l) => l.includes('"narrow"')), "the token name is logged");
    const everything = lines.join("\n") + JSON.stringify(calls);
    for (const secret of [FULL, NARROW]) assert.ok(!everything.includes(secret));
  });
});
