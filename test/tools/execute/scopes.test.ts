import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, startTestGateway, type TestGateway } from "../../_helpers/gateway.ts";
import { execute, resultOf } from "./_setup.ts";
import { authedHttpClient } from "../../security/_http.ts";

const WIDE = "wide-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";

const YAML = `
gateway:
  auth:
    tokens:
      - { name: wide, token: "${WIDE}" }
      - { name: narrow, token: "${NARROW}", tools: ["execute", "echo__echo"] }
servers:
  echo: ${nodeServer("echo.mjs")}
scripting:
  execute: true
`;

describe("execute: per-token tool scopes apply inside scripts", () => {
  let gw: TestGateway;
  let wide: Client;
  let narrow: Client;
  before(async () => {
    gw = await startTestGateway(YAML);
    wide = await authedHttpClient(gw.url, WIDE);
    narrow = await authedHttpClient(gw.url, NARROW);
  });
  after(async () => {
    await wide?.close();
    await narrow?.close();
    await gw?.stop();
  });

  it("a call outside the token's globs is forbidden while an allowed one succeeds", async () => {
    const code = `return { tools.call("echo__echo", {}).ok, tools.call("echo__pid", {}).error }`;
    const r = await resultOf(narrow, code) as [boolean, { code: string; message: string }];
    assert.equal(r[0], true);
    assert.equal(r[1].code, "forbidden");
    assert.match(r[1].message, /not allowed for token "narrow"/);
    // The wide token's second call succeeds, so its `.error` is nil and the list has one item.
    const w = await resultOf(wide, code) as unknown[];
    assert.deepEqual(w, [true]);
  });

  it("search, describe and mcp.listTools see only the token's tools", async () => {
    const code = `
      local found = tools.search{query = "pid process"}
      local paths = {}
      for i, item in ipairs(found.items) do paths[i] = item.path end
      return { paths = table.concat(paths, ","), described = tools.describe{path = "echo__pid"}.error ~= nil,
               names = mcp.listTools() }`;
    const r = await resultOf(narrow, code) as {
      paths: string;
      described: boolean;
      names: string[];
    };
    assert.ok(!r.paths.split(",").includes("echo__pid"), `narrow found ${r.paths}`);
    assert.equal(r.described, true, "describe of an out-of-scope tool is an error");
    assert.deepEqual(r.names, ["echo__echo"]);
    const w = await resultOf(wide, code) as { paths: string; described: boolean };
    assert.ok(w.paths.split(",").includes("echo__pid"), `wide found ${w.paths}`);
    assert.equal(w.described, false);
  });

  it("mcp.call of an out-of-scope tool answers is_error and the trace says forbidden", async () => {
    const r = await execute(narrow, `return task.await(mcp.call("echo__pid", {})).is_error`);
    assert.equal(r.structured.result, true);
    assert.deepEqual(r.structured.calls.map((c) => c.error), ["forbidden"]);
  });
});
