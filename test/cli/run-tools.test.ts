/**
 * `mcp-gateway run` gives scripts the same `tools` namespace as `execute` (search, describe,
 * call, the `tools["server__tool"]` shorthand), running as the operator: hidden tools answer.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { nodeServer, ROOT } from "../_helpers/gateway.ts";
import { cli } from "./_cli.ts";

const SCRIPT = `
local found = tools.search{ query = "echo the arguments", limit = 3 }
local d = tools.describe{ path = "echo__echo" }
local r = tools.call("echo__echo", { text = "hi" })
local s = tools["echo__structured"]({ n = 21 })
local missing = tools.call("echo__nope", {})
local hidden = tools.call("echo__pid", {})
local pic = tools["echo__picture"]({})
emit(found.items[1].path)
return {
  signature = d.signature,
  echoed = r.data.content[1].text,
  doubled = s.data.structuredContent.doubled,
  missing = missing.error.code,
  hidden_ok = hidden.ok,
  dot = mcp.image(pic.data.content[2]),
}
`;

describe("mcp-gateway run: the tools namespace", () => {
  it("searches, describes and calls tools, shorthand and pictures included", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-run-"));
    writeFileSync(
      join(dir, "gateway.yaml"),
      `servers:\n  echo: ${
        nodeServer("echo.mjs", "tools: { overrides: { pid: { hidden: true } } }")
      }\nscripting: { macros: null }\n`,
    );
    writeFileSync(join(dir, "probe.lua"), SCRIPT);
    const r = cli(["run", "probe.lua", "--config", "gateway.yaml"], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^emit: "echo__echo"$/m);
    const json = JSON.parse(r.stdout.split("\n").find((l) => l.startsWith("{"))!);
    assert.match(json.signature, /^echo__echo\(/);
    assert.equal(json.echoed, '{"text":"hi"}');
    assert.equal(json.doubled, 42);
    assert.equal(json.missing, "tool_not_found");
    assert.equal(json.hidden_ok, true, "run is the operator: hidden tools answer");
    assert.deepEqual(json.dot, { type: "image", image: 1 });
    const picture = join(dir, "probe.picture-1.png");
    assert.ok(existsSync(picture), r.stderr);
    assert.deepEqual([...readFileSync(picture).subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  });

  it("runs the code-mode scripts of docs/SCRIPTING.md unchanged against the shipped gateway.yaml", () => {
    const page = readFileSync(join(ROOT, "docs/SCRIPTING.md"), "utf8");
    const start = page.indexOf("## Code mode (`execute`)");
    assert.ok(start >= 0, "docs/SCRIPTING.md has the code-mode section");
    const end = page.indexOf("\n## ", start + 1);
    const section = page.slice(start, end < 0 ? undefined : end);
    const scripts = [...section.matchAll(/```lua\n([\s\S]*?)```/g)].map((m) => m[1]!);
    assert.equal(scripts.length, 3);
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-run-"));
    const env = { ...process.env, MEMORY_FILE_PATH: join(dir, "memory.jsonl") };
    // One run (one start of the three servers): each script becomes a function's body.
    const all = scripts.map((code, i) => `local r${i} = (function()\n${code}\nend)()`).join("\n");
    writeFileSync(join(dir, "doc.lua"), `${all}\nreturn { r0, r1, r2 }\n`);
    const args = ["run", join(dir, "doc.lua"), "--config", join(ROOT, "gateway.yaml")];
    const r = cli(args, ROOT, env);
    assert.equal(r.code, 0, r.stderr);
    const results = JSON.parse(r.stdout.split("\n").find((l) => l.startsWith("["))!);
    assert.equal(results[0].tool, "filesystem__read_text_file");
    assert.deepEqual(results[1], { calls: 20, total: 2310 });
    assert.deepEqual(results[2].logo, { type: "image", image: 1 });
    assert.ok(existsSync(join(dir, "doc.picture-1.png")), r.stderr);
  });

  it("cannot enumerate tools, as in execute", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-run-"));
    writeFileSync(join(dir, "gateway.yaml"), `servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    writeFileSync(join(dir, "list.lua"), "for k in pairs(tools) do end\nreturn 1\n");
    const r = cli(["run", "list.lua", "--config", "gateway.yaml"], dir);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /tools cannot be listed/);
  });
});
