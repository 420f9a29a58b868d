import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, textOf, useGateway } from "../_helpers/gateway.ts";

const YAML = `
gateway: { exposure: search }
servers:
  echo: ${
  nodeServer(
    "echo.mjs",
    "tools: { overrides: { pid: { hidden: true }, echo: { description: 'Repeat words back' } } }",
  )
}
  other: ${nodeServer("echo.mjs", "discoverable: true, tools: { allow: [structured] }")}
`;

describe("discovery meta-tools through the gateway", () => {
  let client: Client;
  useGateway(YAML, (_g, c) => {
    client = c;
  });

  it("exposure: search lists only the meta-tools", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    // `execute` (on by default) is a meta-tool too.
    assert.deepEqual(names, ["execute", "tool_describe", "tool_search"]);
  });

  it("tool_search finds unlisted tools, ranked, with total and has_more", async () => {
    const r = await client.callTool({
      name: "tool_search",
      arguments: { query: "repeat words", limit: 1 },
    });
    const found = r.structuredContent as {
      items: { name: string; server: string }[];
      total: number;
      has_more: boolean;
    };
    assert.equal(found.items[0]!.name, "echo__echo");
    assert.equal(found.items[0]!.server, "echo");
    assert.ok(found.total >= 1);
    assert.equal(found.has_more, found.total > 1);
  });

  it("tool_search filters by server and finds discoverable servers' tools", async () => {
    const r = await client.callTool({
      name: "tool_search",
      arguments: { query: "structured", server: "other" },
    });
    const found = r.structuredContent as { items: { name: string }[] };
    assert.deepEqual(found.items.map((i) => i.name), ["other__structured"]);
  });

  it("hidden tools are neither found nor callable by clients", async () => {
    const r = await client.callTool({ name: "tool_search", arguments: { query: "process id" } });
    const names = (r.structuredContent as { items: { name: string }[] }).items.map((i) => i.name);
    assert.ok(!names.includes("echo__pid"));
    await assert.rejects(
      client.callTool({ name: "echo__pid", arguments: {} }),
      /unknown tool "echo__pid"/,
    );
  });

  it("unlisted tools stay callable by name", async () => {
    const r = await client.callTool({ name: "other__structured", arguments: { n: 2 } });
    assert.deepEqual(r.structuredContent, { doubled: 4 });
  });

  it("tool_describe returns the schema, output schema and a compact signature", async () => {
    const r = await client.callTool({
      name: "tool_describe",
      arguments: { name: "other__structured" },
    });
    const d = r.structuredContent as Record<string, unknown>;
    assert.equal(d.name, "other__structured");
    assert.deepEqual(d.inputSchema, { type: "object", properties: { n: { type: "integer" } } });
    assert.equal(d.outputSchemaTarget, "data.structuredContent");
    assert.match(String(d.signature), /^other__structured\(n\?: integer\)/);
  });

  it("tool_describe of an unknown name is an error result with suggestions", async () => {
    const r = await client.callTool({ name: "tool_describe", arguments: { name: "echo__ecoh" } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /unknown tool "echo__ecoh"; did you mean "echo__echo"/);
  });

  it("tool_search with a bad argument is an error result naming it", async () => {
    const r = await client.callTool({ name: "tool_search", arguments: { query: "x", limit: -1 } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /limit must be a non-negative integer/);
  });
});
