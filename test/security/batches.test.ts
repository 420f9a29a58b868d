import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { selfCommand } from "../../src/runtime/mod.ts";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { INITIALIZE, MCP_HEADERS, openSession } from "./_http.ts";

/** The default `gateway.limits.batch`. */
const LIMIT = 50;

/** `n` echo calls as one JSON-RPC batch. */
const batchOf = (n: number, first = 100) =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: "2.0",
      id: first + i,
      method: "tools/call",
      params: { name: "echo__echo", arguments: { text: `item ${i}` } },
    })),
  );

/** Opens a legacy SSE session with fetch; returns the `/message` URL and the open stream. */
async function openLegacy(base: string) {
  const ctrl = new AbortController();
  const res = await fetch(`${base}/sse`, { signal: ctrl.signal });
  const reader = res.body!.getReader();
  let text = "";
  for (let i = 0; i < 20 && !/data: (\S+)/.test(text); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const endpoint = /event: endpoint\ndata: (\S+)/.exec(text)?.[1];
  assert.ok(endpoint, `no endpoint event in ${text}`);
  return { url: `${base}${endpoint}`, close: () => ctrl.abort() };
}

describe("JSON-RPC batch cap on HTTP", () => {
  let gw: TestGateway;
  let calls = 0;
  before(async () => {
    gw = await startTestGateway(`
servers:
  echo: ${nodeServer("echo.mjs")}
`);
    gw.running.gateway.calls.observeCalls(() => calls++);
  });
  after(async () => await gw?.stop());

  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });

  it("/mcp refuses a batch over the cap whole with one JSON-RPC error, running nothing", async () => {
    const sid = await openSession(gw.url);
    calls = 0;
    const res = await post(`${gw.url}/mcp`, batchOf(LIMIT + 1), { "mcp-session-id": sid });
    assert.equal(res.status, 413);
    const body = await res.json();
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /51 messages.*limit of 50 \(gateway\.limits\.batch\)/);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(calls, 0);
  });

  it("/mcp runs a batch at the cap", async () => {
    const sid = await openSession(gw.url);
    calls = 0;
    const res = await post(`${gw.url}/mcp`, batchOf(LIMIT), { "mcp-session-id": sid });
    assert.equal(res.status, 200);
    await res.text();
    assert.equal(calls, LIMIT);
  });

  it("/mcp refuses an initialize batch over the cap without opening a session", async () => {
    const init = JSON.parse(INITIALIZE);
    const pings = Array.from(
      { length: 60 },
      (_, i) => ({ jsonrpc: "2.0", id: i + 2, method: "ping" }),
    );
    const res = await post(`${gw.url}/mcp`, JSON.stringify([init, ...pings]));
    assert.equal(res.status, 413);
    assert.equal(res.headers.get("mcp-session-id"), null);
    assert.equal((await res.json()).error.code, -32600);
  });

  it("/message refuses a batch over the cap whole, running nothing", async () => {
    const legacy = await openLegacy(gw.url);
    try {
      calls = 0;
      const res = await post(legacy.url, batchOf(500));
      assert.equal(res.status, 413);
      assert.match((await res.json()).error.message, /500 messages.*gateway\.limits\.batch/);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(calls, 0);
    } finally {
      legacy.close();
    }
  });

  it("/message runs a batch at the cap", async () => {
    const legacy = await openLegacy(gw.url);
    try {
      calls = 0;
      const res = await post(legacy.url, batchOf(LIMIT));
      assert.equal(res.status, 202);
      await res.text();
      assert.ok(await waitFor(() => calls === LIMIT, 5_000), `ran ${calls} calls`);
    } finally {
      legacy.close();
    }
  });
});

describe("JSON-RPC batches on --stdio", () => {
  it("a batch line is never run; the session keeps answering", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-batch-"));
    writeFileSync(join(dir, "gateway.yaml"), `servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    const [cmd, ...pre] = selfCommand();
    const child = spawn(cmd!, [
      ...pre,
      "--stdio",
      "--config",
      join(dir, "gateway.yaml"),
      "--log-level",
      "error",
    ], { stdio: ["pipe", "pipe", "ignore"] });
    const ids: unknown[] = [];
    createInterface({ input: child.stdout! }).on("line", (l) => ids.push(JSON.parse(l).id));
    const send = (m: unknown) =>
      child.stdin!.write(`${typeof m === "string" ? m : JSON.stringify(m)}\n`);
    try {
      send(INITIALIZE);
      assert.ok(await waitFor(() => ids.includes(1), 20_000), "no initialize answer");
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send(batchOf(60));
      send({ jsonrpc: "2.0", id: 7, method: "ping" });
      assert.ok(await waitFor(() => ids.includes(7), 10_000), "no ping answer");
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(ids.filter((id) => typeof id === "number" && id >= 100), []);
    } finally {
      // End of input stops the gateway and its upstream; SIGKILL only if it does not.
      child.stdin!.end();
      const exited = new Promise((r) => child.once("exit", r));
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
  });
});
