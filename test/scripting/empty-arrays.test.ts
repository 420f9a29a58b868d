import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fakeBridge, makeHost, valueOf } from "./_helpers.ts";

const host = makeHost({ poolSize: 1, limits: { timeoutMs: 5000 } });
after(() => host.close());

describe("empty JSON arrays through a script", () => {
  test("an empty array a tool returned goes back out as [], an empty object as {}", async () => {
    const bridge = fakeBridge({
      graph: () => ({
        content: [{ type: "text", text: "g" }],
        structuredContent: { relations: [], entities: [], meta: {} },
      }),
    });
    const value = valueOf(
      await host.run(`return task.await(mcp.call('graph', {})).result.structuredContent`, {
        bridge,
      }),
    );
    assert.deepEqual(value, { relations: [], entities: [], meta: {} });
  });

  test("the marked array becomes a list once filled, an object once keyed", async () => {
    const bridge = fakeBridge({
      empty: () => ({ content: [], structuredContent: { a: [], b: [] } }),
    });
    const value = valueOf(
      await host.run(
        `local s = task.await(mcp.call('empty', {})).result.structuredContent
         s.a[1] = 'x'
         s.b.k = 1
         return s`,
        { bridge },
      ),
    );
    assert.deepEqual(value, { a: ["x"], b: { k: 1 } });
  });

  test("an empty table a script builds is still {}", async () => {
    assert.deepEqual(valueOf(await host.run(`return { t = {} }`)), { t: {} });
  });

  test("arguments keep empty arrays that came in as arrays", async () => {
    const bridge = fakeBridge();
    await host.run(`task.await(mcp.call('echo', { list = args.list })) return 1`, {
      bridge,
      globals: { args: { list: [] } },
    });
    assert.deepEqual(bridge.calls[0]?.args, { list: [] });
  });
});
