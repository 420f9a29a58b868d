import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { makeHost, valueOf } from "./_helpers.ts";

const host = makeHost({ poolSize: 1 });
after(() => host.close());

/** Runs a snippet that must raise; returns the error message. */
async function refused(code: string): Promise<string> {
  const outcome = await host.run(code);
  assert.equal(outcome.ok, false, `expected an error from: ${code}`);
  return outcome.ok ? "" : outcome.message;
}

describe("sandbox", () => {
  test("only the allowed globals exist", async () => {
    const names = valueOf(
      await host.run(`
      local out = {}
      for k in pairs(_G) do out[#out + 1] = k end
      table.sort(out)
      return out
    `),
    ) as string[];
    const allowed = new Set([
      "_G",
      "_VERSION",
      "assert",
      "collectgarbage",
      "coroutine",
      "emit",
      "error",
      "getmetatable",
      "ipairs",
      "load",
      "math",
      "mcp",
      "next",
      "os",
      "pairs",
      "pcall",
      "print",
      "rawequal",
      "rawget",
      "rawlen",
      "rawset",
      "select",
      "setmetatable",
      "string",
      "table",
      "task",
      "tonumber",
      "tostring",
      "type",
      "utf8",
      "xpcall",
    ]);
    assert.deepEqual(names.filter((n) => !allowed.has(n)), []);
    for (
      const banned of ["io", "debug", "require", "package", "dofile", "loadfile", "host", "warn"]
    ) {
      assert.ok(!names.includes(banned), banned);
    }
  });

  for (
    const [name, code] of [
      ["io", "return io.open('/etc/passwd')"],
      ["os.execute", "return os.execute('true')"],
      ["os.getenv", "return os.getenv('HOME')"],
      ["os.exit", "os.exit(3)"],
      ["os.remove", "return os.remove('/tmp/x')"],
      ["require", "return require('os')"],
      ["package.loadlib", "return package.loadlib('x', 'y')"],
      ["dofile", "return dofile('/etc/passwd')"],
      ["loadfile", "return loadfile('/etc/passwd')"],
      ["debug", "return debug.getregistry()"],
      ["string.dump", "return string.dump(function() end)"],
      ["string method dump", "return ('x').dump(print)"],
    ] as const
  ) {
    test(`${name} is out of reach`, async () => {
      assert.match(await refused(code), /attempt to (call|index) a nil value/);
    });
  }

  test("os keeps time, clock and date only", async () => {
    const value = valueOf(
      await host.run(`
      local keys = {}
      for k in pairs(os) do keys[#keys + 1] = k end
      table.sort(keys)
      return { keys = keys, t = type(os.time()), c = type(os.clock()), d = type(os.date('%Y')) }
    `),
    );
    assert.deepEqual(value, {
      keys: ["clock", "date", "time"],
      t: "number",
      c: "number",
      d: "string",
    });
  });

  test("load runs text but refuses binary chunks, even when asked for mode 'b'", async () => {
    const value = valueOf(
      await host.run(`
      local f = load('return 1 + 1')
      local bin = '\\27Lua' .. string.rep('\\0', 40)
      local g, err = load(bin, 'x', 'b')
      local h, err2 = load(bin)
      return { text = f(), bin = g == nil and err, bin2 = h == nil and err2 }
    `),
    ) as { text: number; bin: string; bin2: string };
    assert.equal(value.text, 2);
    assert.match(value.bin, /binary chunk/);
    assert.match(value.bin2, /binary chunk/);
  });

  test("load with an environment keeps it (a script can sandbox its own chunks)", async () => {
    assert.equal(valueOf(await host.run(`return load('return x', 'c', 't', { x = 7 })()`)), 7);
  });

  test("collectgarbage allows count and collect only", async () => {
    assert.equal(
      typeof valueOf(await host.run(`collectgarbage('collect') return collectgarbage('count')`)),
      "number",
    );
    for (const opt of ["stop", "incremental", "generational", "step", "setpause"]) {
      assert.match(await refused(`collectgarbage('${opt}')`), /not allowed/);
    }
  });

  test("the string metatable is locked", async () => {
    assert.equal(valueOf(await host.run(`return getmetatable('')`)), "string");
    assert.match(
      await refused(`getmetatable('').__index = { evil = 1 }`),
      /attempt to index a string value/,
    );
    assert.match(await refused(`setmetatable('', {})`), /bad argument/);
  });

  test("__gc finalizers are refused", async () => {
    assert.match(
      await refused(`setmetatable({}, { __gc = function() while true do end end })`),
      /__gc/,
    );
  });

  test("nothing leaks from one run into the next", async () => {
    valueOf(await host.run(`leaked = 42; string.upper = nil; mcp.extra = 1`));
    assert.deepEqual(
      valueOf(
        await host.run(`return { leaked = leaked, upper = string.upper('a'), extra = mcp.extra }`),
      ),
      { upper: "A" },
    );
  });

  test("no JS object or prototype is reachable", async () => {
    const value = valueOf(
      await host.run(`
      local found = {}
      for _, name in ipairs({ 'js', 'global', 'globalThis', 'process', 'Promise', 'Error', 'null', '__H', 'H' }) do
        if _G[name] ~= nil then found[#found + 1] = name end
      end
      return found
    `),
    );
    assert.deepEqual(value, {});
  });

  test("utf8 is the real utf8 library", async () => {
    assert.deepEqual(
      valueOf(await host.run(`return { utf8.len('häh'), utf8.char(228), utf8.codepoint('ä') }`)),
      [3, "ä", 228],
    );
  });
});
