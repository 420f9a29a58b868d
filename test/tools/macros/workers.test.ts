// Script workers under pressure: a float default, execute calling macros on a full pool, and one
// token's runaway scripts beside another token's quick one. All driven from clients.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, type TestGateway, textOf } from "../../_helpers/gateway.ts";
import { startWithMacros } from "./_setup.ts";
import { authedHttpClient } from "../../security/_http.ts";

const SCALE = `
mcp.tool {
  name = "scale", description = "Multiply by a factor",
  params = { x = { type = "number" }, factor = { default = 2.0 } },
  run = function(args) return { value = args.x * args.factor } end,
}
mcp.tool { name = "two", description = "Answers 2", run = function() return "2" end }
mcp.tool {
  name = "deeper", description = "Calls itself until refused",
  run = function()
    local r = task.await(mcp.call("deeper", {}))
    if r.is_error then return "refused: " .. r.content end
    return r.content
  end,
}
`;

const A = "token-a-0123456789abcdef";
const B = "token-b-0123456789abcdef";

// One warm worker, so two run slots per depth and one per token.
const YAML = `
gateway:
  auth:
    tokens:
      - { name: a, token: "${A}" }
      - { name: b, token: "${B}" }
servers:
  echo: ${nodeServer("echo.mjs")}
scripting:
  execute: true
  limits: { workers: 1 }
`;

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });

describe("script workers", () => {
  let gw: TestGateway;
  let a: Client;
  let b: Client;
  before(async () => {
    gw = await startWithMacros(YAML, { "macros/scale.lua": SCALE });
    a = await authedHttpClient(gw.url, A);
    b = await authedHttpClient(gw.url, B);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gw?.stop();
  });

  it("a float default makes the param a number: 1.5 is accepted", async () => {
    const tool = (await a.listTools()).tools.find((t) => t.name === "scale");
    const factor = (tool?.inputSchema.properties as Record<string, { type: string }>).factor;
    assert.equal(factor?.type, "number");
    const r = await call(a, "scale", { x: 3, factor: 1.5 });
    assert.equal(r.isError, undefined, textOf(r));
    assert.equal(textOf(r), '{"value":4.5}');
    assert.equal(textOf(await call(a, "scale", { x: 3 })), '{"value":6}');
  });

  it("execute calling a macro while every worker is busy does not deadlock", async () => {
    // Both clients (one slot each) hold both depth-0 slots with scripts that wait for a slow
    // call, then call a macro: the macros must run on slots of their own.
    const code = `local slow = tools.call("echo__slow", { ms = 500 })
                  local m = tools.call("two", {})
                  return { slow.ok, m.ok, m.data and m.data.content[1].text }`;
    const started = Date.now();
    const runs = await Promise.all([
      call(a, "execute", { code, timeout_ms: 20_000 }),
      call(b, "execute", { code, timeout_ms: 20_000 }),
    ]);
    for (const r of runs) {
      assert.equal(r.isError, undefined, textOf(r));
      assert.deepEqual((r.structuredContent as { result: unknown }).result, [true, true, "2"]);
    }
    assert.ok(Date.now() - started < 15_000, "finished long before the time limit");
  });

  it("token A spinning scripts on every worker it may hold does not stop token B", async () => {
    const spin = { code: "while true do end", timeout_ms: 10_000 };
    let firstSpinEnded = 0;
    const spins = [0, 1].map(() =>
      call(a, "execute", spin).then((r) => {
        firstSpinEnded ||= Date.now();
        return r;
      })
    );
    await new Promise((r) => setTimeout(r, 300)); // the spins have taken their slots
    const quick = await call(b, "execute", { code: "return 'b ran'" });
    const bDone = Date.now();
    assert.equal(quick.isError, undefined, textOf(quick));
    assert.equal((quick.structuredContent as { result: unknown }).result, "b ran");
    assert.equal(firstSpinEnded, 0, "B was served while A's scripts still spun");
    for (const r of await Promise.all(spins)) assert.equal(r.isError, true);
    assert.ok(bDone < firstSpinEnded);
  });

  it("scripts calling scripts stop at the nesting limit with a clear error", async () => {
    const r = await call(a, "deeper", {});
    assert.equal(r.isError, undefined, textOf(r));
    assert.match(textOf(r), /^refused: scripts may call scripts at most 3 levels deep/);
  });
});
