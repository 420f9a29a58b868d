import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fakeBridge, makeHost, valueOf } from "./_helpers.ts";

// Memory above the default so the 16 MiB strings fit beside their copies.
const host = makeHost({
  poolSize: 1,
  limits: { memoryBytes: 128 * 1024 * 1024, timeoutMs: 20_000 },
});
after(() => host.close());

/** Runs `mcp.call('echo', <expr>)` built by `setup`; returns the poll table and the bridge. */
async function callWith(setup: string) {
  // Answers briefly: echoing 16 MiB back would (rightly) pass the transfer budget.
  const bridge = fakeBridge({ echo: () => ({ content: [{ type: "text", text: "ok" }] }) });
  const value = valueOf(
    await host.run(
      `
    ${setup}
    local r = task.await(mcp.call('echo', args))
    return { is_error = r.is_error, content = r.content }
  `,
      { bridge },
    ),
  ) as { is_error: boolean; content: string };
  return { ...value, calls: bridge.calls.length, args: bridge.calls[0]?.args };
}

async function refusedWith(setup: string, pattern: RegExp): Promise<void> {
  const r = await callWith(setup);
  assert.equal(r.is_error, true, `expected a refusal, got ${r.content.slice(0, 200)}`);
  assert.match(r.content, pattern);
  assert.equal(r.calls, 0, "the tool never ran");
}

const keyed = (n: number) => `local args = {} for i = 1, ${n} do args['k' .. i] = i end`;
const seq = (n: number) => `local args = { items = {} } for i = 1, ${n} do args.items[i] = i end`;
const nested = (n: number) =>
  `local args = {} local t = args for i = 2, ${n} do t.c = {} t = t.c end`;

describe("mcp.call argument ceilings", () => {
  test("4096 keyed entries pass; 4097 are refused naming the size and ceiling", async () => {
    const ok = await callWith(keyed(4096));
    assert.equal(ok.is_error, false);
    assert.equal(Object.keys(ok.args ?? {}).length, 4096);
    await refusedWith(
      keyed(4097),
      /^mcp\.call refused: args holds 4097 keyed entries, over the ceiling of 4096$/,
    );
  });

  test("262144 sequence items pass; 262145 are refused", async () => {
    const ok = await callWith(seq(262144));
    assert.equal(ok.is_error, false);
    assert.equal((ok.args?.items as unknown[]).length, 262144);
    await refusedWith(
      seq(262145),
      /args\.items holds 262145 sequence items, over the ceiling of 262144/,
    );
  });

  test("nesting 64 tables deep passes; 65 is refused", async () => {
    const ok = await callWith(nested(64));
    assert.equal(ok.is_error, false);
    let depth = 0;
    for (let t: unknown = ok.args; t && typeof t === "object"; t = (t as { c?: unknown }).c) {
      depth++;
    }
    assert.equal(depth, 64);
    await refusedWith(nested(65), /args(\.c){64} is nested 65 tables deep, over the ceiling of 64/);
  });

  test("a string that is not UTF-8 is refused, naming its path", async () => {
    await refusedWith(
      `local args = { items = { 1, 2, { name = 'ok\\255\\254' } } }`,
      /args\.items\[3\]\.name is a string of 4 bytes that is not valid UTF-8 text/,
    );
  });

  test("a 16 MiB string passes; 16 MiB + 1 is refused", async () => {
    const ok = await callWith(`local args = { s = string.rep('a', 16 * 1024 * 1024) }`);
    assert.equal(ok.is_error, false);
    assert.equal((ok.args?.s as string).length, 16 * 1024 * 1024);
    await refusedWith(
      `local args = { s = string.rep('a', 16 * 1024 * 1024 + 1) }`,
      /args\.s is a string of 16777217 bytes, over the ceiling of 16777216 bytes/,
    );
  });

  test("a string args that is not JSON is refused; one holding NUL is refused", async () => {
    await refusedWith(`local args = '{"a": 1'`, /args is not JSON/);
    await refusedWith(`local args = '{}\\0garbage'`, /args is not JSON: it holds a NUL byte/);
    await refusedWith(`local args = '[1, 2]'`, /args must be a JSON object/);
    await refusedWith(
      `local args = 'caf\\233'`,
      /args is a string of 4 bytes that is not valid UTF-8/,
    );
  });

  test("functions, cycles and odd keys are refused", async () => {
    await refusedWith(
      `local args = { f = print }`,
      /args\.f is a function, which JSON cannot carry/,
    );
    await refusedWith(
      `local args = {} args.self = args`,
      /args\.self is a table that contains itself/,
    );
    await refusedWith(`local args = { [true] = 1 }`, /args has a key of type boolean/);
    await refusedWith(`local args = { [1.5] = 1 }`, /args has a key of type float/);
    await refusedWith(`local args = 42`, /args must be a table or a JSON string, not a number/);
  });

  test("a refused call's poll answers is_error with the reason", async () => {
    const value = valueOf(
      await host.run(
        `
      local id = mcp.call('echo', { f = print })
      local r = mcp.poll(id)
      return { r.is_error, r.content, r.result.isError }
    `,
        { bridge: fakeBridge() },
      ),
    );
    assert.deepEqual(value, [
      true,
      "mcp.call refused: args.f is a function, which JSON cannot carry",
      true,
    ]);
  });
});

describe("transfer budget", () => {
  test("the result that would pass the budget is answered intermediate_result_too_large", async () => {
    const bridge = fakeBridge();
    const value = valueOf(
      await host.run(
        `
      local a = task.await(mcp.call('echo', { s = string.rep('a', 600) }))
      local b = task.await(mcp.call('echo', { s = string.rep('b', 600) }))
      return { a.is_error, b.is_error, b.content }
    `,
        { bridge, limits: { transferBytes: 1000 } },
      ),
    ) as [boolean, boolean, string];
    assert.equal(value[0], false);
    assert.equal(value[1], true);
    assert.match(value[2], /^intermediate_result_too_large/);
  });
});

describe("value conversion Lua → JSON", () => {
  test("arrays, objects, empty tables, integers and floats", async () => {
    const r = await callWith(`local args = {
      empty = {}, arr = { 1, 2, 3 }, sparse = { [1] = 'a', [3] = 'c' }, mixed = { 1, x = 2 },
      int = 3, float = 2.5, whole = 3.0, big = 2^60, huge = 1e300, nan = 0/0, neg = -7,
      t = true, f = false, nul = 'a\\0b', esc = 'q"\\\\\\n\\t\\1', uni = 'ä€😀',
    }`);
    assert.equal(r.is_error, false);
    assert.deepEqual(r.args, {
      empty: {},
      arr: [1, 2, 3],
      sparse: { 1: "a", 3: "c" },
      mixed: { 1: 1, x: 2 },
      int: 3,
      float: 2.5,
      whole: 3,
      big: 2 ** 60,
      huge: 1e300,
      nan: null,
      neg: -7,
      t: true,
      f: false,
      nul: "a\u0000b",
      esc: 'q"\\\n\t\u0001',
      uni: "ä€😀",
    });
  });

  test("the same table twice is fine (only cycles are refused)", async () => {
    const r = await callWith(`local shared = { 1 } local args = { a = shared, b = shared }`);
    assert.deepEqual(r.args, { a: [1], b: [1] });
  });
});
