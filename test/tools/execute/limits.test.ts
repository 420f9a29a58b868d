import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  useGateway,
  waitFor,
} from "../../_helpers/gateway.ts";
import { type Entry, execute, EXECUTE_YAML } from "./_setup.ts";

describe("execute: concurrency, pictures, limits and errors", () => {
  let client: Client;
  useGateway(EXECUTE_YAML, (_g, c) => {
    client = c;
  });

  it("50 calls started with mcp.call run concurrently under task.await", async () => {
    // Each call sleeps 400 ms: one after another they would take 20 s.
    const r = await execute(
      client,
      `local ids = {}
       for i = 1, 50 do ids[i] = mcp.call("echo__slow", { ms = 400 }) end
       local done = 0
       for i = 1, 50 do
         if not task.await(ids[i]).is_error then done = done + 1 end
       end
       return done`,
    );
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured.result, 50);
    assert.equal(r.structured.calls.length, 50);
    assert.ok(r.structured.calls.every((c: Entry) => c.ok && c.path === "echo__slow"));
    assert.ok(r.structured.stats.elapsed_ms < 10_000, `took ${r.structured.stats.elapsed_ms}ms`);
  });

  it("upstream images and mcp.image values become image blocks after the text", async () => {
    const r = await execute(
      client,
      `local pic = tools.echo__picture()
       emit({ dot = pic.data.content[2] })
       return { caption = pic.data.content[1].text, red = mcp.image("/pics/red-3x2.png") }`,
    );
    assert.equal(r.isError, false, r.text);
    const shown = JSON.parse(r.text);
    assert.deepEqual(shown, r.structured);
    assert.deepEqual(shown.result, { caption: "a red dot", red: { type: "image", image: 1 } });
    assert.deepEqual(shown.emitted, [{ dot: { type: "image", image: 2 } }]);
    assert.equal(shown.output, "");
    assert.deepEqual(r.content.slice(1).map((c) => [c.type, c.mimeType]), [
      ["image", "image/png"],
      ["image", "image/png"],
    ]);
    assert.deepEqual(r.structured.result, {
      caption: "a red dot",
      red: { type: "image", image: 1 },
    });
  });

  it("a 17th picture is an error naming the count and the ceiling", async () => {
    const r = await execute(
      client,
      `local p = mcp.image("/pics/red-3x2.png") local out = {}
       for i = 1, 17 do out[i] = p end return out`,
    );
    assert.equal(r.isError, true);
    assert.match(r.text, /17 pictures, over the ceiling of 16/);
  });

  it("a Lua error gives its message, its line and the calls made so far", async () => {
    const r = await execute(
      client,
      `tools.call("echo__echo", {})\nlocal t = nil\nreturn t.field`,
    );
    assert.equal(r.isError, true);
    assert.match(r.structured.error!.message, /attempt to index a nil value/);
    assert.equal(r.structured.error!.line, 3);
    assert.match(r.text, /\(script line 3\)/);
    assert.deepEqual(r.structured.calls.map((c) => [c.path, c.ok]), [["echo__echo", true]]);
  });

  it("a script past its time limit reports the trace, marks running calls incomplete and cancels them upstream", async () => {
    const r = await execute(
      client,
      // The hanging call is started first, so a slow machine cannot spend the whole limit on
      // the quick call before the hanging one is ever made.
      `local id = mcp.call("hang__hang", {})
       tools.call("hang__quick", {})
       task.await(id)`,
      3000,
    );
    assert.equal(r.isError, true);
    assert.equal(r.structured.error!.limit, "time");
    assert.match(r.structured.error!.message, /time limit of 3s/);
    const calls = r.structured.calls.map((c) => [c.path, c.ok, c.error, c.incomplete]);
    assert.deepEqual(calls, [
      ["hang__hang", false, "cancelled", true],
      ["hang__quick", true, undefined, undefined],
    ]);
    const cancelled = await waitFor(
      async () => {
        const list = JSON.parse(textOf(await client.callTool({ name: "hang__cancellations" })));
        return list.length > 0 ? list : null;
      },
      10_000,
      "the upstream to see the cancellation",
    );
    assert.equal(cancelled.length, 1);
  });

  it("timeout_ms above the configured ceiling is clamped to it; a bad one is refused", async () => {
    const r = await execute(client, `return 1`, 10_000_000);
    assert.equal(r.isError, false);
    assert.equal(r.structured.stats.timeout_ms, 30_000);
    const lower = await execute(client, `return 1`, 2000);
    assert.equal(lower.structured.stats.timeout_ms, 2000);
    const bad = await execute(client, `return 1`, -5);
    assert.equal(bad.isError, true);
    assert.match(bad.text, /timeout_ms must be a positive integer/);
  });
});

describe("execute: the transfer budget and the memory limit", () => {
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    gw = await startTestGateway(`
servers:
  echo: ${nodeServer("echo.mjs")}
scripting:
  execute: true
  limits: { transfer: 1MiB, memory: 16MiB }
`);
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("the call that would pass the budget gets intermediate_result_too_large; rejected calls consume nothing", async () => {
    // Each echo of 300 KB of text returns ~300 KB: three fit in 1 MiB, the fourth does not.
    const r = await execute(
      client,
      `local big = string.rep("x", 300 * 1024)
       local out = {}
       for i = 1, 4 do out[i] = tools.call("echo__echo", { text = big }) end
       local small = tools.call("echo__echo", { text = "small" })
       local id = mcp.call("echo__echo", { text = big })
       local raw = task.await(id)
       return { oks = { out[1].ok, out[2].ok, out[3].ok, out[4].ok }, err = out[4].error,
                small = small.ok, raw_error = raw.is_error, raw = raw.content }`,
    );
    assert.equal(r.isError, false, r.text);
    const v = r.structured.result as {
      oks: boolean[];
      err: { code: string; message: string };
      small: boolean;
      raw_error: boolean;
      raw: string;
    };
    assert.deepEqual(v.oks, [true, true, true, false]);
    assert.equal(v.err.code, "intermediate_result_too_large");
    assert.match(v.err.message, /transfer budget of 1048576 bytes/);
    assert.equal(v.small, true, "a small call after a rejection still fits");
    assert.equal(v.raw_error, true, "mcp.call results are under the same budget");
    assert.match(v.raw, /intermediate_result_too_large/);
    const codes = r.structured.calls.map((c) => c.error ?? "ok");
    assert.deepEqual(codes, [
      "ok",
      "ok",
      "ok",
      "intermediate_result_too_large",
      "ok",
      "intermediate_result_too_large",
    ]);
    assert.ok(r.structured.stats.bytes_transferred <= 1024 * 1024);
  });

  it("a script allocating past its memory limit is stopped with the trace", async () => {
    const r = await execute(
      client,
      `tools.call("echo__echo", {})
       local t = {} for i = 1, 1e8 do t[i] = string.rep("y", 64) .. i end`,
    );
    assert.equal(r.isError, true);
    assert.equal(r.structured.error!.limit, "memory");
    assert.match(r.text, /memory limit of 16MiB/);
    assert.equal(r.structured.calls.length, 1);
  });
});
