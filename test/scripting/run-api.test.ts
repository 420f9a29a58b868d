import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fakeBridge, makeHost, sleep, valueOf } from "./_helpers.ts";
import { ScriptBuffer } from "../../src/scripting/mod.ts";

const host = makeHost({ poolSize: 1 });
after(() => host.close());

/** test/fixtures/images/red-3x2.png, base64. */
const RED_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACAQMAAACnuvRZAAAAA1BMVEX/AAAZ4gk3AAAADElEQVQI12NgYGAAAAAEAAEnNCcKAAAAAElFTkSuQmCC";

describe("run options: globals, prelude, host functions, print and emit", () => {
  test("globals arrive as Lua values, strings whole (NUL included), null as nil", async () => {
    const value = valueOf(
      await host.run(
        `return { args.name, #args.bin, args.list[2], args.nothing == nil, math.type(args.n), math.type(args.f) }`,
        {
          globals: {
            args: { name: "zoë", bin: "a\u0000b", list: [1, 2], nothing: null, n: 3, f: 1.5 },
          },
        },
      ),
    );
    assert.deepEqual(value, ["zoë", 3, 2, true, "integer", "float"]);
  });

  test("a prelude runs first, sees host, and host is hidden from the script afterwards", async () => {
    const value = valueOf(
      await host.run(`return { tools.twice(21), host == nil }`, {
        prelude: `
        local host = host
        tools = { twice = function(n) return host.call('double', { n = n }) end }
      `,
        hostFunctions: { double: (args) => (args as { n: number }).n * 2 },
      }),
    );
    assert.deepEqual(value, [42, true]);
  });

  test("host.try returns the failure as { code, message }; host.call raises it at the script's line", async () => {
    const hostFunctions = {
      fail: () => {
        throw new Error("no such thing");
      },
      slow: async (_: unknown, ctx: { remainingMs: number }) => {
        await sleep(20);
        return { remaining: ctx.remainingMs > 0 };
      },
    };
    const value = valueOf(
      await host.run(
        `
      local ok, err = host.try('fail', {})
      local ok2, v = host.try('slow')
      return { ok, err.message, ok2, v.remaining }
    `,
        { hostFunctions, exposeHost: true },
      ),
    );
    assert.deepEqual(value, [false, "no such thing", true, true]);
    const outcome = await host.run(`\n\nreturn host.call('fail', {}) + 1`, {
      hostFunctions,
      exposeHost: true,
    });
    assert.ok(!outcome.ok);
    assert.equal(outcome.message, "no such thing");
    assert.equal(outcome.line, 3);
    const unknown = await host.run(`host.call('nope')`, { hostFunctions, exposeHost: true });
    assert.ok(!unknown.ok);
    assert.match(unknown.message, /no host function named "nope"/);
  });

  test("host calls run concurrently with host.start/host.wait", async () => {
    const hostFunctions = { nap: async (a: unknown) => (await sleep(200), a) };
    const t0 = Date.now();
    const value = valueOf(
      await host.run(
        `
      local ids = {}
      for i = 1, 4 do ids[i] = host.start('nap', i) end
      local out = {}
      for i, id in ipairs(ids) do local ok, v = host.wait(id) out[i] = v end
      return out
    `,
        { hostFunctions, exposeHost: true },
      ),
    );
    assert.deepEqual(value, [1, 2, 3, 4]);
    assert.ok(Date.now() - t0 < 700, `took ${Date.now() - t0}ms`);
  });

  test("print is captured; emit collects values in order; the return value is JSON", async () => {
    const outcome = await host.run(`
      print('a', 1, true, nil)
      emit({ step = 1 })
      print('b\\0c')
      emit('two')
      return { done = true }
    `);
    assert.ok(outcome.ok);
    assert.equal(outcome.output, "a\t1\ttrue\tnil\nb\\0c\n");
    assert.deepEqual(outcome.emitted, [{ step: 1 }, "two"]);
    assert.deepEqual(outcome.value, { done: true });
    assert.equal(outcome.stats.toolCalls, 0);
    assert.ok(outcome.stats.elapsedMs >= 0);
  });

  test("output survives a failure", async () => {
    const outcome = await host.run(`print('before') emit(1) error('after')`);
    assert.ok(!outcome.ok);
    assert.equal(outcome.output, "before\n");
    assert.deepEqual(outcome.emitted, [1]);
  });

  test("print output past the transfer ceiling is cut with a marker", async () => {
    const outcome = await host.run(`for i = 1, 100 do print(string.rep('x', 99)) end return 1`, {
      limits: { transferBytes: 1000 },
    });
    assert.ok(outcome.ok);
    assert.equal(
      outcome.output,
      ("x".repeat(99) + "\n").repeat(10) + "[output truncated: over 1000 bytes]\n",
    );
  });

  test("a returned function is refused naming the path", async () => {
    const outcome = await host.run(`return { f = print }`);
    assert.ok(!outcome.ok);
    assert.match(outcome.message, /result\.f is a function/);
  });

  test("nil and multiple returns: only the first value counts", async () => {
    assert.equal(valueOf(await host.run(`return`)), null);
    assert.equal(valueOf(await host.run(`return 1, 2`)), 1);
  });
});

describe("mcp.image in scripts", () => {
  test("a VFS path, relative or absolute, gives an image value", async () => {
    const value = valueOf(
      await host.run(`
      local a = mcp.image('images/red-3x2.png')
      local b = mcp.image('/source/images/grad-5x4.jpg')
      return { a = { a.type, a.mime_type, a.width, a.height, a.bytes, a.path }, b = { b.mime_type, b.width, b.height, b.path }, data = a.data }
    `),
    ) as { a: unknown[]; b: unknown[]; data: string };
    assert.deepEqual(value.a, ["image", "image/png", 3, 2, 84, "/source/images/red-3x2.png"]);
    assert.deepEqual(value.b, ["image/jpeg", 5, 4, "/source/images/grad-5x4.jpg"]);
    assert.equal(value.data, RED_PNG);
  });

  test("an MCP image block from a tool result, an image value, and imageBase64 with its path", async () => {
    const bridge = fakeBridge({
      shot: () => ({
        content: [{ type: "text", text: "here" }, {
          type: "image",
          data: RED_PNG,
          mimeType: "image/png",
        }],
      }),
    });
    const value = valueOf(
      await host.run(
        `
      local r = task.await(mcp.call('shot'))
      local a = mcp.image(r.result.content[2])
      local b = mcp.image(a)
      local c = mcp.image({ imageBase64 = a.data, path = '/tmp/probe.png' })
      return { a.width, b.height, c.path, a.path == nil }
    `,
        { bridge },
      ),
    );
    assert.deepEqual(value, [3, 2, "/tmp/probe.png", true]);
  });

  test("a buffer handle from a host function", async () => {
    const value = valueOf(
      await host.run(
        `
      local buf = host.call('capture')
      local img = mcp.image(buf)
      return { buf.type, buf.bytes, img.width, img.height, getmetatable(buf) }
    `,
        { exposeHost: true, hostFunctions: { capture: () => new ScriptBuffer(RED_PNG) } },
      ),
    );
    assert.deepEqual(value, ["buffer", 84, 3, 2, "buffer"]);
    const outcome = await host.run(`return { b = host.call('capture') }`, {
      exposeHost: true,
      hostFunctions: { capture: () => new ScriptBuffer(RED_PNG) },
    });
    assert.ok(!outcome.ok);
    assert.match(outcome.message, /result\.b is a buffer/);
  });

  test("bad sources raise with the script's line", async () => {
    for (
      const [code, pattern] of [
        ["local x = mcp.image('/etc/passwd')", /outside every mount/],
        ["local x = mcp.image('../secret.png')", /'\.\.' segments are not allowed/],
        ["local x = mcp.image('images/missing.png')", /does not exist/],
        ["local x = mcp.image({ data = 'aGVsbG8gd29ybGQ=' })", /not a PNG, JPEG, GIF or WebP/],
        ["local x = mcp.image({ data = '***' })", /not valid base64/],
        ["local x = mcp.image(42)", /source must be a VFS path/],
        ["local x = mcp.image({})", /carries no base64 picture/],
      ] as const
    ) {
      const outcome = await host.run(`\n${code}`);
      assert.ok(!outcome.ok, code);
      assert.match(outcome.message, pattern, code);
      assert.equal(outcome.line, 2, code);
    }
  });
});
