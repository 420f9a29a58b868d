import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { fixture, type TestGateway, textOf, useGateway } from "../_helpers/gateway.ts";

// Marker files a shell would create; each test checks that none exists.
const dir = mkdtempSync(join(tmpdir(), "mcpgw-shell-"));
const mark = (name: string) => join(dir, name);
const q = JSON.stringify;

const HOSTILE_ARGS = [
  `$(touch ${mark("subst-arg")})`,
  `\`touch ${mark("backtick-arg")}\``,
  `; touch ${mark("semicolon-arg")}`,
  `&& touch ${mark("and-arg")}`,
  `| touch ${mark("pipe-arg")}`,
];

const YAML = `
servers:
  semicolon: { command: ${q(`echo hi; touch ${mark("semicolon-cmd")}`)} }
  subst: { command: ${q(`$(touch ${mark("subst-cmd")})`)} }
  backtick: { command: ${q(`\`touch ${mark("backtick-cmd")}\``)} }
  literal: { command: node, args: ${q([fixture("argv.mjs"), ...HOSTILE_ARGS])} }
`;

describe("config values never reach a shell", () => {
  let gw: TestGateway;
  let client: Client;
  useGateway(YAML, (g, c) => {
    gw = g;
    client = c;
  });

  it("reports a command holding shell syntax as down with 'command not found' and runs nothing", () => {
    for (const name of ["semicolon", "subst", "backtick"]) {
      const u = gw.running.gateway.pool.get(name)!;
      assert.equal(u.state, "down", name);
      assert.match(String(u.lastError), /command not found/, name);
    }
    for (const f of ["semicolon-cmd", "subst-cmd", "backtick-cmd"]) {
      assert.equal(existsSync(mark(f)), false, f);
    }
  });

  it("passes arguments holding $(…), backticks, ; && and | to the server literally", async () => {
    const r = await client.callTool({ name: "literal__argv", arguments: {} });
    assert.deepEqual(JSON.parse(textOf(r)), HOSTILE_ARGS);
    for (const f of ["subst-arg", "backtick-arg", "semicolon-arg", "and-arg", "pipe-arg"]) {
      assert.equal(existsSync(mark(f)), false, f);
    }
  });
});
