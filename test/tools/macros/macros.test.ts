import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  httpClient,
  nodeServer,
  ROOT,
  type TestGateway,
  textOf,
  waitFor,
} from "../../_helpers/gateway.ts";
import { startupError, startWithMacros } from "./_setup.ts";

const GREET = `
mcp.tool {
  name = "greet",
  description = "Greet a person",
  params = {
    name  = "Person name",
    times = { type = "int", description = "Repeat count", default = 1 },
    loud  = { default = false },
    tags  = { type = "array:string", required = false },
  },
  keywords = { "hello" },
  run = function(args)
    local s = string.rep("Hello, " .. args.name .. "! ", args.times)
    if args.loud then s = s:upper() end
    return s
  end,
}
`;

const MORE = `
local lib = require("_lib")
mcp.tool { name = "as_table", description = "Return a table", run = function() return { a = 1, list = { "x", "y" } } end }
mcp.tool { name = "nothing", description = "Return nil", run = function() end }
mcp.tool {
  name = "boom", description = "Raise an error",
  run = function()
    error("it broke")
  end,
}
mcp.tool { name = "twice", description = "Library use", params = { n = { type = "number" } }, run = function(a) return lib.double(a.n) end }
mcp.tool {
  name = "secret_pid", description = "Calls a hidden upstream tool",
  run = function() local r = task.await(mcp.call("echo__pid", {})) return { hidden_ok = not r.is_error, pid = r.content } end,
}
mcp.tool {
  name = "finder", description = "A discoverable macro that finds needles", discoverable = true,
  keywords = { "haystack" }, run = function() return "found" end,
}
mcp.tool {
  name = "picture", description = "Return a picture from the VFS",
  run = function() return { shot = mcp.image("pic.png"), note = "one" } end,
}
`;
const LIB = `return { double = function(n) return n * 2 end }`;

const YAML = `
servers:
  echo: ${nodeServer("echo.mjs", "tools: { overrides: { pid: { hidden: true } } }")}
scripting:
  tools:
    add:
      description: Add two numbers
      params: { a: { type: number }, b: { type: number, default: 10 } }
      lua: "return args.a + args.b"
`;

describe("macros", () => {
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    gw = await startWithMacros(YAML, {
      "macros/greet.lua": GREET,
      "macros/more.lua": MORE,
      "macros/_lib.lua": LIB,
      "pic.png": "",
    });
    // A real 3x2 PNG for mcp.image, under /source (the config folder).
    writeFileSync(
      join(gw.dir, "pic.png"),
      await Deno_or_fs_read(join(ROOT, "test/fixtures/images/red-3x2.png")),
    );
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("lists a macro under its own name with the schema generated from its params", async () => {
    const greet = (await client.listTools()).tools.find((t) => t.name === "greet");
    assert.ok(greet, "greet is listed");
    assert.equal(greet.description, "Greet a person");
    assert.deepEqual(greet.inputSchema, {
      type: "object",
      properties: {
        loud: { type: "boolean", default: false },
        name: { type: "string", description: "Person name" },
        tags: { type: "array", items: { type: "string" } },
        times: { type: "integer", description: "Repeat count", default: 1 },
      },
      required: ["name"],
      additionalProperties: false,
    });
  });

  it("fills defaults before run", async () => {
    const r = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
    assert.equal(textOf(r), "Hello, Ada! ");
  });

  it("passes given arguments", async () => {
    const r = await client.callTool({
      name: "greet",
      arguments: { name: "Ada", times: 2, loud: true },
    });
    assert.equal(textOf(r), "HELLO, ADA! HELLO, ADA! ");
  });

  it("refuses arguments that do not match the declared schema, naming them", async () => {
    const r = await client.callTool({ name: "greet", arguments: { times: "two", extra: 1 } });
    assert.equal(r.isError, true);
    const text = textOf(r);
    assert.match(text, /unknown argument "extra"/);
    assert.match(text, /missing required argument "name"/);
    assert.match(text, /argument "times" must be an integer, got string "two"/);
  });

  it("maps a returned table to JSON text", async () => {
    const r = await client.callTool({ name: "as_table", arguments: {} });
    assert.deepEqual(JSON.parse(textOf(r)), { a: 1, list: ["x", "y"] });
  });

  it("maps nil to empty text", async () => {
    const r = await client.callTool({ name: "nothing", arguments: {} });
    assert.equal(r.isError, undefined);
    assert.equal(textOf(r), "");
  });

  it("maps a raised error to an error result with the message and the Lua line", async () => {
    const r = await client.callTool({ name: "boom", arguments: {} });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /it broke \(at more\.lua:8\)/);
  });

  it("loads libraries from _*.lua files with require", async () => {
    const r = await client.callTool({ name: "twice", arguments: { n: 21 } });
    assert.equal(textOf(r), "42");
  });

  it("can call upstream tools hidden from clients", async () => {
    const r = await client.callTool({ name: "secret_pid", arguments: {} });
    const v = JSON.parse(textOf(r));
    assert.equal(v.hidden_ok, true);
    assert.match(v.pid, /^\d+$/);
    await assert.rejects(client.callTool({ name: "echo__pid", arguments: {} }), /unknown tool/);
  });

  it("hides a discoverable macro from tools/list; tool_search finds it and it stays callable", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes("finder"));
    assert.ok(names.includes("tool_search"), "meta-tools appear when a macro is discoverable");
    const s = await client.callTool({ name: "tool_search", arguments: { query: "haystack" } });
    const items = (s.structuredContent as { items: { name: string; server: string }[] }).items;
    assert.equal(items[0]?.name, "finder");
    assert.equal(items[0]?.server, "macros");
    assert.equal(textOf(await client.callTool({ name: "finder", arguments: {} })), "found");
  });

  it("returns pictures as image blocks beside the text", async () => {
    const r = await client.callTool({ name: "picture", arguments: {} });
    const content = r.content as { type: string; mimeType?: string }[];
    assert.deepEqual(JSON.parse(textOf(r)), { shot: { type: "image", image: 1 }, note: "one" });
    assert.equal(content[1]?.type, "image");
    assert.equal(content[1]?.mimeType, "image/png");
  });

  it("serves inline macros from scripting.tools with args and defaults", async () => {
    const r = await client.callTool({ name: "add", arguments: { a: 5 } });
    assert.equal(textOf(r), "15");
  });

  it("reloads with the config: a new macro file appears and sessions hear list_changed", async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    writeFileSync(
      join(gw.dir, "macros/late.lua"),
      `mcp.tool { name = "late", description = "Added later", run = function() return "late" end }`,
    );
    await gw.running.reload("test");
    await waitFor(() => changed > 0, 5000, "tools/list_changed");
    assert.equal(textOf(await client.callTool({ name: "late", arguments: {} })), "late");
  });

  it("an invalid macro on reload keeps the previous macros serving", async () => {
    writeFileSync(
      join(gw.dir, "macros/broken.lua"),
      `mcp.tool { name = "broken", description = "x" }`,
    );
    await gw.running.reload("test");
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("greet"));
    assert.ok(!names.includes("broken"));
    assert.equal(
      textOf(await client.callTool({ name: "greet", arguments: { name: "B" } })),
      "Hello, B! ",
    );
  });
});

async function Deno_or_fs_read(path: string): Promise<Uint8Array> {
  const { readFile } = await import("node:fs/promises");
  return new Uint8Array(await readFile(path));
}

describe("macro registration errors stop start-up, naming file, tool and key", () => {
  const yaml = "servers: {}\n";
  it("an unknown type", async () => {
    const msg = await startupError(yaml, {
      "macros/a.lua":
        `mcp.tool { name = "t", description = "d", params = { n = { type = "integr" } }, run = function() end }`,
    });
    assert.match(msg, /macros\/a\.lua: tool "t": param "n": unknown type "integr"/);
  });

  it("an unknown key in a parameter spec", async () => {
    const msg = await startupError(yaml, {
      "macros/a.lua":
        `mcp.tool { name = "t", description = "d", params = { n = { typ = "int" } }, run = function() end }`,
    });
    assert.match(msg, /macros\/a\.lua: tool "t": param "n": unknown key "typ"/);
  });

  it("a missing run", async () => {
    const msg = await startupError(yaml, {
      "macros/a.lua": `mcp.tool { name = "t", description = "d" }`,
    });
    assert.match(msg, /macros\/a\.lua: tool "t": run must be a function/);
  });

  it("a missing description", async () => {
    const msg = await startupError(yaml, {
      "macros/a.lua": `mcp.tool { name = "t", run = function() end }`,
    });
    assert.match(msg, /macros\/a\.lua: tool "t": description is missing/);
  });

  it("an unknown key in the tool spec", async () => {
    const msg = await startupError(yaml, {
      "macros/a.lua":
        `mcp.tool { name = "t", description = "d", parms = {}, run = function() end }`,
    });
    assert.match(msg, /macros\/a\.lua: tool "t": unknown key "parms"/);
  });

  it("an invalid tool name", async () => {
    const msg = await startupError(yaml, {
      "macros/a.lua": `mcp.tool { name = "has space", description = "d", run = function() end }`,
    });
    assert.match(msg, /macros\/a\.lua: tool "has space": invalid name/);
  });

  it("a name defined twice names both places", async () => {
    const msg = await startupError(
      "scripting:\n  tools:\n    t: { description: d, lua: 'return 1' }\n",
      { "macros/a.lua": `mcp.tool { name = "t", description = "d", run = function() end }` },
    );
    assert.match(
      msg,
      /macro "t" is defined twice: in macros\/a\.lua and in gateway\.yaml scripting\.tools\.t/,
    );
  });

  it("a Lua syntax error names the file and line", async () => {
    const msg = await startupError(yaml, { "macros/a.lua": `\n\nmcp.tool { name = ` });
    assert.match(msg, /macros\/a\.lua: .*a\.lua:3/);
  });
});
