import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fakeBridge, makeHost, sleep, valueOf } from "./_helpers.ts";
import type { ToolResult } from "../../src/scripting/mod.ts";

const host = makeHost({ poolSize: 2, limits: { timeoutMs: 5000 } });
after(() => host.close());

const slow = (ms: number) => async (args: Record<string, unknown>): Promise<ToolResult> => {
  await sleep(ms);
  return { content: [{ type: "text", text: `done ${args.n}` }] };
};

describe("mcp and task", () => {
  test("mcp.call returns an id string; task.await gives id, is_error, content and result", async () => {
    const bridge = fakeBridge();
    const value = valueOf(
      await host.run(
        `
      local id = mcp.call('echo', { msg = 'hi', n = 3 })
      local r = task.await(id)
      return { id_type = type(id), same = r.id == id, r = r }
    `,
        { bridge },
      ),
    ) as { id_type: string; same: boolean; r: Record<string, unknown> };
    assert.equal(value.id_type, "string");
    assert.equal(value.same, true);
    assert.equal(value.r.is_error, false);
    assert.deepEqual(JSON.parse(value.r.content as string), { msg: "hi", n: 3 });
    // Lua tables have no key order, so compare the echoed JSON as a value.
    const result = value.r.result as { content: Array<{ type: string; text: string }> };
    assert.equal(result.content.length, 1);
    assert.equal(result.content[0]?.type, "text");
    assert.deepEqual(JSON.parse(result.content[0]?.text ?? ""), { msg: "hi", n: 3 });
    assert.deepEqual(bridge.calls.map((c) => [c.name, c.args]), [["echo", { msg: "hi", n: 3 }]]);
  });

  test("content joins the text blocks with newlines and skips others", async () => {
    const bridge = fakeBridge({
      multi: () => ({
        content: [
          { type: "text", text: "one" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "text", text: "two" },
        ],
      }),
    });
    const value = valueOf(
      await host.run(`return task.await(mcp.call('multi')).content`, { bridge }),
    );
    assert.equal(value, "one\ntwo");
  });

  test("mcp.poll is nil while pending, then the result", async () => {
    const bridge = fakeBridge({ slow: slow(150) });
    const value = valueOf(
      await host.run(
        `
      local id = mcp.call('slow', { n = 1 })
      local first = mcp.poll(id)
      local polls = 0
      local r
      repeat polls = polls + 1; r = mcp.poll(id) until r ~= nil
      return { first_nil = first == nil, content = r.content, again = mcp.poll(id).content, polls = polls > 1 }
    `,
        { bridge },
      ),
    );
    assert.deepEqual(value, { first_nil: true, content: "done 1", again: "done 1", polls: true });
  });

  test("5 calls of 200ms each run concurrently", async () => {
    const bridge = fakeBridge({ slow: slow(200) });
    const t0 = Date.now();
    const value = valueOf(
      await host.run(
        `
      local ids = {}
      for i = 1, 5 do ids[i] = mcp.call('slow', { n = i }) end
      local out = {}
      for i, id in ipairs(ids) do out[i] = task.await(id).content end
      return out
    `,
        { bridge },
      ),
    );
    const elapsed = Date.now() - t0;
    assert.deepEqual(value, ["done 1", "done 2", "done 3", "done 4", "done 5"]);
    assert.ok(elapsed < 900, `5 × 200ms calls took ${elapsed}ms`);
  });

  test("task.await takes several ids at once", async () => {
    const bridge = fakeBridge({ slow: slow(50) });
    const value = valueOf(
      await host.run(
        `
      local a, b = task.await(mcp.call('slow', { n = 1 }), mcp.call('slow', { n = 2 }))
      return { a.content, b.content }
    `,
        { bridge },
      ),
    );
    assert.deepEqual(value, ["done 1", "done 2"]);
  });

  test("task.await works inside a script's own coroutines and inside pcall", async () => {
    const bridge = fakeBridge({ slow: slow(30) });
    const value = valueOf(
      await host.run(
        `
      local gen = coroutine.wrap(function()
        coroutine.yield(task.await(mcp.call('slow', { n = 1 })).content)
        coroutine.yield(task.await(mcp.call('slow', { n = 2 })).content)
      end)
      local ok, third = pcall(function() return task.await(mcp.call('slow', { n = 3 })).content end)
      return { gen(), gen(), ok and third }
    `,
        { bridge },
      ),
    );
    assert.deepEqual(value, ["done 1", "done 2", "done 3"]);
  });

  test("an isError result stays a result; a rejected call answers is_error with the message", async () => {
    const bridge = fakeBridge({
      bad: () => ({ content: [{ type: "text", text: "nope" }], isError: true }),
      boom: () => Promise.reject(new Error("upstream exploded")),
    });
    const value = valueOf(
      await host.run(
        `
      local a = task.await(mcp.call('bad'))
      local b = task.await(mcp.call('boom'))
      local c = task.await(mcp.call('missing'))
      return { a = { a.is_error, a.content }, b = { b.is_error, b.content, b.result.isError }, c = { c.is_error, c.content } }
    `,
        { bridge },
      ),
    );
    assert.deepEqual(value, {
      a: [true, "nope"],
      b: [true, "upstream exploded", true],
      c: [true, "unknown tool missing"],
    });
  });

  test("mcp.listTools lists every tool name", async () => {
    const bridge = fakeBridge({ alpha: () => ({ content: [] }), beta: () => ({ content: [] }) });
    assert.deepEqual(valueOf(await host.run(`return mcp.listTools()`, { bridge })), [
      "alpha",
      "beta",
    ]);
    // No bridge: an empty list, which goes back out as [] (it arrived as a JSON array).
    assert.deepEqual(valueOf(await host.run(`return mcp.listTools()`)), []);
  });

  test("a string args is parsed as JSON as it stands", async () => {
    const bridge = fakeBridge();
    valueOf(
      await host.run(`return task.await(mcp.call('echo', '{"a":[1,2.5,"x"],"b":null}'))`, {
        bridge,
      }),
    );
    assert.deepEqual(bridge.calls[0]?.args, { a: [1, 2.5, "x"], b: null });
  });

  test("in-flight calls are aborted when the script ends", async () => {
    let aborted = false;
    const bridge = fakeBridge({
      hang: (_args, signal) =>
        new Promise<ToolResult>((_, reject) => {
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    });
    valueOf(await host.run(`mcp.call('hang') return 1`, { bridge }));
    await sleep(20);
    assert.equal(aborted, true);
  });

  test("a call that never settles cannot hold the script past its time limit", async () => {
    const bridge = fakeBridge({ never: () => new Promise<ToolResult>(() => {}) });
    const t0 = Date.now();
    const outcome = await host.run(`return task.await(mcp.call('never'))`, {
      bridge,
      limits: { timeoutMs: 300 },
    });
    assert.ok(!outcome.ok);
    assert.equal(outcome.limit, "time");
    assert.equal(outcome.message, "script exceeded its time limit of 300ms");
    assert.ok(Date.now() - t0 < 2000);
  });

  test("a tool call from the wrong place names the problem", async () => {
    const outcome = await host.run(
      `
      table.sort({ 3, 1, 2 }, function(a, b) task.await(mcp.call('echo')) return a < b end)
    `,
      { bridge: fakeBridge() },
    );
    assert.ok(!outcome.ok);
    assert.match(outcome.message, /cannot wait for the host here/);
  });

  test("unknown ids and bad tool names raise with the script's line", async () => {
    const a = await host.run(`\ntask.await('nope')`);
    assert.ok(!a.ok);
    assert.match(a.message, /unknown request id/);
    assert.equal(a.line, 2);
    const b = await host.run(`\n\nmcp.call(42)`);
    assert.ok(!b.ok);
    assert.match(b.message, /toolName must be a string/);
    assert.equal(b.line, 3);
  });
});
