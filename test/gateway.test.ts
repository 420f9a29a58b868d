import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  fixture,
  httpClient,
  nodeServer,
  sseClient,
  startTestGateway,
  stdioClient,
  type TestGateway,
  textOf,
  useGateway,
} from "./_helpers/gateway.ts";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

const YAML = `
servers:
  echo: ${nodeServer("echo.mjs", "tools: { deny: [crash] }")}
  second: ${nodeServer("echo.mjs", "env: { ECHO_NAME: second }, tools: { allow: [echo, pid] }")}
  mute: ${nodeServer("no-handshake.mjs", "connectTimeout: 500ms")}
  missing: { command: ./definitely/not/here }
`;

describe("gateway over streamable HTTP with real upstreams", () => {
  let gw: TestGateway;
  let client: Client;
  useGateway(YAML, (g, c) => {
    gw = g;
    client = c;
  });

  it("lists tools of every live upstream under <server>__<tool>", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("echo__echo"));
    assert.ok(names.includes("second__pid"));
    assert.ok(!names.some((n) => n.startsWith("mute__") || n.startsWith("missing__")));
  });

  it("applies allow and deny globs per server", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes("echo__crash"));
    assert.deepEqual(names.filter((n) => n.startsWith("second__")).sort(), [
      "second__echo",
      "second__pid",
    ]);
  });

  it("sanitises names so every one matches ^[a-zA-Z0-9_-]{1,64}$", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of names) assert.match(n, /^[a-zA-Z0-9_-]{1,64}$/);
    assert.ok(names.includes("echo__Weird_Name_with_spaces_and_colons"));
  });

  it("passes input schemas through untouched", async () => {
    const echo = (await client.listTools()).tools.find((t) => t.name === "echo__echo")!;
    assert.equal(echo.inputSchema.$schema, "http://json-schema.org/draft-07/schema#");
    assert.deepEqual((echo.inputSchema as Record<string, unknown>).$defs, {
      mode: { enum: ["plain", "loud"] },
    });
    assert.equal(echo.inputSchema.additionalProperties, false);
  });

  it("routes a call to the right upstream with arguments carried whole", async () => {
    const args = { text: "héllo ✓", mode: "loud" };
    const r = await client.callTool({ name: "echo__echo", arguments: args });
    assert.deepEqual(JSON.parse(textOf(r)), args);
  });

  it("carries images, structured content and isError results unchanged", async () => {
    const pic = await client.callTool({ name: "echo__picture", arguments: {} });
    assert.equal((pic.content as { type: string }[])[1]!.type, "image");
    const st = await client.callTool({ name: "echo__structured", arguments: { n: 21 } });
    assert.deepEqual(st.structuredContent, { doubled: 42 });
    const fail = await client.callTool({ name: "echo__fail", arguments: {} });
    assert.equal(fail.isError, true);
    assert.equal(textOf(fail), "this tool always fails");
  });

  it("answers an unknown tool with an error naming it", async () => {
    await assert.rejects(
      client.callTool({ name: "nope__nothing", arguments: {} }),
      /unknown tool "nope__nothing"/,
    );
  });

  it("keeps serving when one upstream never finishes its handshake and another is missing", async () => {
    const down = gw.running.gateway.pool.all().filter((u) => u.state !== "up").map((
      u,
    ) => [u.name, u.lastError]);
    assert.deepEqual(down.map(([n]) => n).sort(), ["missing", "mute"]);
    assert.match(String(down.find(([n]) => n === "mute")![1]), /handshake within 500ms/);
    assert.match(String(down.find(([n]) => n === "missing")![1]), /not found|ENOENT/);
  });

  it("serves many concurrent sessions", async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => httpClient(gw.url)));
    const results = await Promise.all(
      clients.map((c, i) => c.callTool({ name: "second__echo", arguments: { i } })),
    );
    results.forEach((r, i) => assert.deepEqual(JSON.parse(textOf(r)), { i }));
    await Promise.all(clients.map((c) => c.close()));
  });

  it("answers /healthz", async () => {
    const res = await fetch(`${gw.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "ok" });
  });

  it("rejects a POST without a session that is not initialize", async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(await res.json()), /initialize/);
  });
});

describe("gateway over legacy SSE", () => {
  it("lists and calls tools", async () => {
    const gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    try {
      const client = await sseClient(gw.url);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("echo__echo"));
      const r = await client.callTool({ name: "echo__echo", arguments: { via: "sse" } });
      assert.deepEqual(JSON.parse(textOf(r)), { via: "sse" });
      await client.close();
    } finally {
      await gw.stop();
    }
  });
});

describe("gateway over stdio", () => {
  it("lists and calls tools with a clean stdout", async () => {
    const gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    await gw.stop();
    const client = await stdioClient(join(gw.dir, "gateway.yaml"));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("echo__echo"), `got ${names.join(",")}`);
      const r = await client.callTool({ name: "echo__echo", arguments: { via: "stdio" } });
      assert.deepEqual(JSON.parse(textOf(r)), { via: "stdio" });
    } finally {
      await client.close();
    }
  });
});

void fixture;

describe("a crashed upstream", () => {
  it("keeps its tools listed, and calls answer at once with why it is down", async () => {
    const gw = await startTestGateway(
      `servers:\n  crashy: ${nodeServer("echo.mjs", "restart: { initialDelay: 30s }")}\n`,
    );
    const client = await httpClient(gw.url);
    try {
      const crashed = await client.callTool({ name: "crashy__crash", arguments: {} });
      assert.equal(crashed.isError, true);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("crashy__echo"), names.join(","));
      const r = await client.callTool({ name: "crashy__echo", arguments: {} });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /server "crashy" is down: .*exited.*; next restart in \d+s/);
    } finally {
      await client.close();
      await gw.stop();
    }
  });
});
