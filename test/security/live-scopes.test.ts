/**
 * Token scopes are live: a reload that narrows a token's globs applies to the sessions it already
 * has open — batches, `tools/list`, legacy SSE, the fast path and running scripts — and tells
 * them with `list_changed`; a reload that removes a token closes its sessions; a legacy SSE
 * session idles out like a streamable one.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type Notification,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { authedHttpClient, authedSseClient, bearer, openSession, ping } from "./_http.ts";
import { openGetStream, openRawSse, postBatch, postMessage } from "./_streams.ts";

const FULL = "full-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";

const config = (narrowGlobs: string | null) => `
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}" }
${
  narrowGlobs === null
    ? ""
    : `      - { name: narrow, token: "${NARROW}", tools: ${narrowGlobs} }\n`
}
servers:
  echo: ${nodeServer("echo.mjs")}
  prompts: ${nodeServer("prompts.mjs")}
scripting:
  execute: true
`;
const WIDE = config(`["echo__echo", "echo__pid", "execute", "prompts__greet"]`);
const NARROWED = config(`["echo__echo", "execute"]`);

const callPid = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo__pid", arguments: {} },
});

/** Rejects with the JSON-RPC "forbidden" code, as a call outside the globs must. */
const forbidden = (err: Error & { code?: number }) =>
  err.code === -32003 && /not allowed for token "narrow"/.test(err.message);

async function reloadWith(gw: TestGateway, yaml: string): Promise<void> {
  writeFileSync(join(gw.dir, "gateway.yaml"), yaml);
  assert.equal(await gw.running.reload("test"), true);
}

/** Records the methods of the tools and prompts `list_changed` notifications a client gets. */
function recordListChanged(client: Client): string[] {
  const seen: string[] = [];
  const push = (n: Notification) => void seen.push(n.method);
  client.setNotificationHandler(ToolListChangedNotificationSchema, push);
  client.setNotificationHandler(PromptListChangedNotificationSchema, push);
  return seen;
}

async function runScript(
  client: Client,
  code: string,
): Promise<{ isError: boolean; text: string }> {
  const r = await client.callTool({ name: "execute", arguments: { code } }, undefined, {
    timeout: 60_000,
  });
  return { isError: r.isError === true, text: textOf(r) };
}

describe("a reload that narrows a token re-scopes its open sessions", () => {
  let gw: TestGateway;
  let full: Client;
  let http: Client;
  let sse: Client;
  let sid: string;
  let seen: { full: string[]; http: string[]; sse: string[] };
  before(async () => {
    gw = await startTestGateway(WIDE);
    full = await authedHttpClient(gw.url, FULL);
    http = await authedHttpClient(gw.url, NARROW);
    sse = await authedSseClient(gw.url, NARROW);
    sid = await openSession(gw.url, bearer(NARROW));
    seen = {
      full: recordListChanged(full),
      http: recordListChanged(http),
      sse: recordListChanged(sse),
    };
  });
  after(async () => {
    await Promise.all([full, http, sse].map((c) => c?.close().catch(() => {})));
    await gw?.stop();
  });

  it("serves echo__pid to the token on every transport before the reload", async () => {
    assert.ok((await http.listTools()).tools.some((t) => t.name === "echo__pid"));
    assert.ok((await sse.listTools()).tools.some((t) => t.name === "echo__pid"));
    assert.deepEqual((await sse.listPrompts()).prompts.map((p) => p.name), ["prompts__greet"]);
    assert.match(textOf(await http.callTool({ name: "echo__pid", arguments: {} })), /^\d+$/);
    assert.match(textOf(await sse.callTool({ name: "echo__pid", arguments: {} })), /^\d+$/);
    const [answer] = await postBatch(gw.url, sid, [callPid(1)], bearer(NARROW));
    assert.ok(answer?.result, JSON.stringify(answer));
  });

  it("sends tools and prompts list_changed to the token's sessions over HTTP and SSE, not to others", async () => {
    await reloadWith(gw, NARROWED);
    await waitFor(() => seen.http.length === 2, 5000, "list_changed over streamable HTTP");
    await waitFor(() => seen.sse.length === 2, 5000, "list_changed over legacy SSE");
    const both = ["notifications/prompts/list_changed", "notifications/tools/list_changed"];
    assert.deepEqual(seen.http.sort(), both);
    assert.deepEqual(seen.sse.sort(), both);
    // The full token's globs did not change and neither did the catalog: nothing to tell it.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(seen.full.length, 0);
  });

  it("drops the tool and the prompt from the open sessions' lists, over HTTP and SSE", async () => {
    for (const client of [http, sse]) {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ["echo__echo", "execute"]);
      assert.deepEqual((await client.listPrompts()).prompts, []);
      await assert.rejects(client.getPrompt({ name: "prompts__greet" }), /unknown prompt/);
    }
  });

  it("refuses the tool in a batch on the open session", async () => {
    const answers = await postBatch(gw.url, sid, [callPid(2), callPid(3)], bearer(NARROW));
    assert.equal(answers.length, 2);
    for (const a of answers) assert.equal(a.error?.code, -32003, JSON.stringify(a));
  });

  it("refuses the tool on the fast path and over legacy SSE", async () => {
    await assert.rejects(http.callTool({ name: "echo__pid", arguments: {} }), forbidden);
    await assert.rejects(sse.callTool({ name: "echo__pid", arguments: {} }), forbidden);
    const ok = await sse.callTool({ name: "echo__echo", arguments: { still: "allowed" } });
    assert.deepEqual(JSON.parse(textOf(ok)), { still: "allowed" });
  });

  it("refuses the tool to a script, even one already running when the reload lands", async () => {
    const now = await runScript(http, `return tools.call("echo__pid", {}).error.code`);
    assert.equal(now.isError, false, now.text);
    assert.match(now.text, /forbidden/);
    // Widen again, start a script that waits, narrow while it waits: its call is refused.
    await reloadWith(gw, WIDE);
    const running = runScript(
      http,
      `local t = os.clock() while os.clock() - t < 2 do end
       local r = tools.call("echo__pid", {})
       return r.error and r.error.code or "called"`,
    );
    await new Promise((r) => setTimeout(r, 500));
    await reloadWith(gw, NARROWED);
    const late = await running;
    assert.equal(late.isError, false, late.text);
    assert.match(late.text, /forbidden/);
  });
});

describe("a reload that removes a token closes its sessions", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(WIDE);
  });
  after(async () => await gw?.stop());

  it("ends its streamable HTTP and SSE sessions; its next requests get 401", async () => {
    const sid = await openSession(gw.url, bearer(NARROW));
    const getStream = openGetStream(gw.url, sid, bearer(NARROW));
    const legacy = await openRawSse(gw.url, bearer(NARROW));
    const fullSid = await openSession(gw.url, bearer(FULL));
    try {
      assert.equal(await getStream.ended(300), false);
      assert.equal(await legacy.stream.ended(300), false);

      await reloadWith(gw, config(null));
      assert.equal(await getStream.ended(5000), true, "the session's GET stream ended");
      assert.equal(await legacy.stream.ended(5000), true, "the SSE event stream ended");
      assert.equal(await ping(gw.url, sid, bearer(NARROW)), 401);
      const ping99 = { jsonrpc: "2.0", id: 99, method: "ping" };
      assert.equal(await postMessage(legacy.messageUrl, ping99, bearer(NARROW)), 401);
      // The other token's session is untouched.
      assert.equal(await ping(gw.url, fullSid, bearer(FULL)), 200);
    } finally {
      await getStream.cancel();
      await legacy.stream.cancel();
    }
  });
});

describe("a reload that changes a token's value closes its sessions", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(WIDE);
  });
  after(async () => await gw?.stop());

  it("ends the sessions opened with the old value; the new value opens new ones", async () => {
    const sid = await openSession(gw.url, bearer(NARROW));
    const legacy = await openRawSse(gw.url, bearer(NARROW));
    try {
      const rotated = "rotated-token-0123456789abcdef";
      await reloadWith(gw, WIDE.replace(`token: "${NARROW}"`, `token: "${rotated}"`));
      assert.equal(await legacy.stream.ended(5000), true, "the SSE event stream ended");
      assert.equal(await ping(gw.url, sid, bearer(NARROW)), 401);
      // The old session is gone even for the new value of the same token.
      assert.equal(await ping(gw.url, sid, bearer(rotated)), 404);
      assert.equal(
        await ping(gw.url, await openSession(gw.url, bearer(rotated)), bearer(rotated)),
        200,
      );
    } finally {
      await legacy.stream.cancel();
    }
  });
});

describe("legacy SSE sessions obey gateway.limits.sessionIdle", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway: { limits: { sessionIdle: 1s } }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => await gw?.stop());

  const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2024-11-05",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  };

  it("closes an SSE session left idle, though its event stream is open", async () => {
    const { stream, messageUrl } = await openRawSse(gw.url);
    try {
      assert.equal(await postMessage(messageUrl, initialize), 202);
      // Keep-alives do not count; the sweeper runs every 250 ms.
      assert.equal(await stream.ended(5000), true, "the idle session's stream ended");
      assert.equal(await postMessage(messageUrl, ping(1)), 404);
    } finally {
      await stream.cancel();
    }
  });

  it("keeps an SSE session that keeps sending requests", async () => {
    const { stream, messageUrl } = await openRawSse(gw.url);
    try {
      for (let i = 1; i <= 6; i++) {
        await new Promise((r) => setTimeout(r, 400));
        assert.equal(await postMessage(messageUrl, ping(i)), 202, `ping ${i}`);
      }
      assert.equal(await stream.ended(0), false);
      assert.match(stream.text, /"id":6/);
    } finally {
      await stream.cancel();
    }
  });

  it("keeps an SSE session while a request runs longer than sessionIdle", async () => {
    const { stream, messageUrl } = await openRawSse(gw.url);
    try {
      assert.equal(await postMessage(messageUrl, initialize), 202);
      const call = {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "echo__slow", arguments: { ms: 2500 } },
      };
      assert.equal(await postMessage(messageUrl, call), 202);
      await waitFor(() => stream.text.includes("slept 2500ms"), 10_000, "the slow call's answer");
      assert.equal(await postMessage(messageUrl, ping(8)), 202);
    } finally {
      await stream.cancel();
    }
  });
});
