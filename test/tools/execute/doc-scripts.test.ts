import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ROOT, useGateway } from "../../_helpers/gateway.ts";
import { execute } from "./_setup.ts";

/** The ```lua blocks of the code-mode section of docs/SCRIPTING.md, in order. */
function docScripts(): string[] {
  const page = readFileSync(join(ROOT, "docs/SCRIPTING.md"), "utf8");
  const start = page.indexOf("## Code mode (`execute`)");
  assert.ok(start >= 0, "docs/SCRIPTING.md has the code-mode section");
  const end = page.indexOf("\n## ", start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```lua\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const bin = (name: string) => JSON.stringify(join(ROOT, "node_modules/.bin", name));

// The shipped gateway.yaml's servers, with absolute paths.
const YAML = `
servers:
  everything: { command: ${bin("mcp-server-everything")}, args: [stdio], timeout: 30s }
  memory: { command: ${
  bin("mcp-server-memory")
}, env: { MEMORY_FILE_PATH: /tmp/mcpgw-execute-readme.jsonl } }
  filesystem: { command: ${bin("mcp-server-filesystem")}, args: [${
  JSON.stringify(join(ROOT, "examples/files"))
}] }
scripting:
  execute: true
`;

describe("execute: the code-mode scripts of docs/SCRIPTING.md against the shipped servers", () => {
  const scripts = docScripts();
  let client: Client;
  useGateway(YAML, (_g, c) => {
    client = c;
  });

  it("the page shows three scripts", () => {
    assert.equal(scripts.length, 3);
  });

  it("search-then-call finds the file reader, describes it and reads a file", async () => {
    const r = await execute(client, scripts[0]!);
    assert.equal(r.isError, false, r.text);
    assert.deepEqual(r.structured.result, {
      tool: "filesystem__read_text_file",
      first_line: "# Example files",
    });
    assert.match(r.structured.output, /^filesystem__read_text_file — filesystem__read_text_file\(/);
    assert.deepEqual(r.structured.calls.map((c) => [c.operation, c.ok]), [
      ["search", true],
      ["describe", true],
      ["call", true],
      ["call", true],
    ]);
  });

  it("the fan-out awaits twenty concurrent calls", async () => {
    const r = await execute(client, scripts[1]!);
    assert.equal(r.isError, false, r.text);
    // Σ (i + 10 i) for i = 1..20 = 11 × 210
    assert.deepEqual(r.structured.result, { calls: 20, total: 2310 });
    assert.equal(r.structured.calls.filter((c) => c.ok).length, 20);
  });

  it("the picture script returns the server's image as a picture of the result", async () => {
    const r = await execute(client, scripts[2]!);
    assert.equal(r.isError, false, r.text);
    const shown = JSON.parse(r.text);
    assert.deepEqual(shown.result.logo, { type: "image", image: 1 });
    assert.match(shown.result.size, /^\d+x\d+$/);
    assert.deepEqual(shown.emitted, ["found 1 picture(s)"]);
    assert.deepEqual(r.content.slice(1).map((c) => [c.type, c.mimeType]), [["image", "image/png"]]);
  });
});
