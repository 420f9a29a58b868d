// Behaviours the scripting seed documents, each once broken, driven from a client.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, ROOT, useGateway } from "../../_helpers/gateway.ts";
import { execute, resultOf } from "./_setup.ts";

const BUDGET = 2048;

const YAML = `
servers:
  echo: ${nodeServer("echo.mjs")}
  dies: ${nodeServer("dies-mid-call.mjs")}
scripting:
  execute: true
  macros: null
  vfs: { /pics: ${JSON.stringify(`${ROOT}/test/fixtures/images`)} }
  limits: { transfer: ${BUDGET} }
`;

/** Lua that nests a table `depth` levels deep (the outer table is level 1). */
const nested = (depth: number) =>
  `local t = { leaf = true }
   for i = 2, ${depth} do t = { inner = t } end`;

/** Bytes of the `tools.call` envelope echo answers for a text of `n` characters. */
function envelopeBytes(n: number): number {
  const text = JSON.stringify({ text: "x".repeat(n) });
  return JSON.stringify({ ok: true, data: { content: [{ type: "text", text }] } }).length;
}

describe("execute: behaviours the seed documents", () => {
  let client: Client;
  useGateway(YAML, (_g, c) => {
    client = c;
  });

  it("tools.call accepts arguments nested exactly 64 deep, like mcp.call", async () => {
    const r = await resultOf(
      client,
      `${nested(64)}
       local via_tools = tools.call("echo__echo", t)
       local via_mcp = task.await(mcp.call("echo__echo", t))
       return { tools_ok = via_tools.ok, mcp_error = via_mcp.is_error }`,
    );
    assert.deepEqual(r, { tools_ok: true, mcp_error: false });
  });

  it("65 deep is refused by both, naming the argument, its depth and the ceiling", async () => {
    const r = await resultOf(
      client,
      `${nested(65)}
       local via_tools = tools.call("echo__echo", t)
       local via_mcp = task.await(mcp.call("echo__echo", t))
       return { via_tools.error, via_mcp.content }`,
    ) as [{ code: string; message: string }, string];
    assert.equal(r[0].code, "invalid_arguments");
    assert.match(r[0].message, /args(\.inner)+ is nested 65 tables deep, over the ceiling of 64/);
    assert.match(r[1], /args(\.inner)+ is nested 65 tables deep, over the ceiling of 64/);
  });

  it("a refused oversized result costs nothing: one of exactly the whole budget still fits", async () => {
    const n = BUDGET - envelopeBytes(0);
    assert.equal(envelopeBytes(n), BUDGET);
    const r = await execute(
      client,
      `local big = tools.call("echo__echo", { text = string.rep("x", ${BUDGET}) })
       local exact = tools.call("echo__echo", { text = string.rep("x", ${n}) })
       return { big = big.error and big.error.code, exact = exact.ok }`,
    );
    assert.equal(r.isError, false, r.text);
    assert.deepEqual(r.structured.result, { big: "intermediate_result_too_large", exact: true });
    assert.equal(r.structured.stats.bytes_transferred, BUDGET);
    assert.deepEqual(r.structured.calls.map((c) => c.error ?? "ok"), [
      "intermediate_result_too_large",
      "ok",
    ]);
  });

  it("an upstream value shaped like a buffer marker stays a plain table", async () => {
    const r = await resultOf(
      client,
      `local v = tools.call("dies__mirror", { ["$buffer"] = "aGk=" }).data.structuredContent
       local m = task.await(mcp.call("dies__mirror", { ["$buffer"] = "aGk=" })).result.structuredContent
       return { type(v), v["$buffer"], v.bytes == nil, m["$buffer"] }`,
    );
    assert.deepEqual(r, ["table", "aGk=", true, "aGk="]);
  });

  it("pictures are numbered in sequence order, then by sorted keys", async () => {
    const files = [
      "red-3x2.png",
      "green-7x6.gif",
      "grad-5x4.jpg",
      "alpha-11x10.webp",
      "lossy-7x6.webp",
      "progressive-13x12.jpg",
      "lossless-9x8.webp",
    ];
    const keys = ["zebra", "apple", "mango", "kiwi", "banana", "cherry", "date"];
    const fields = keys.map((k, i) => `${k} = mcp.image("/pics/${files[i]}")`).join(", ");
    const r = await execute(
      client,
      `return { list = { mcp.image("/pics/${files[1]}"), mcp.image("/pics/${files[0]}") },
                named = { ${fields} } }`,
    );
    assert.equal(r.isError, false, r.text);
    const shown = r.structured.result as {
      list: Array<{ image: number }>;
      named: Record<string, { image: number }>;
    };
    // "list" sorts before "named": its two pictures are 1 and 2, in sequence order.
    assert.deepEqual(shown.list.map((p) => p.image), [1, 2]);
    const sorted = [...keys].sort();
    for (const [i, key] of sorted.entries()) assert.equal(shown.named[key]!.image, i + 3, key);
    const images = r.content.filter((b) => b.type === "image");
    const data = (file: string) =>
      readFileSync(`${ROOT}/test/fixtures/images/${file}`).toString("base64");
    assert.equal(images[0]!.data, data(files[1]!));
    assert.equal(images[1]!.data, data(files[0]!));
    for (const [i, key] of sorted.entries()) {
      assert.equal(images[i + 2]!.data, data(files[keys.indexOf(key)]!), key);
    }
  });
});
