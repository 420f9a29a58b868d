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

  it("tool_describe returns the compact shape and output schema as data, the signature as text", async () => {
    const r = await client.callTool({
      name: "tool_describe",
      arguments: { name: "other__structured" },
    });
    const d = r.structuredContent as Record<string, unknown>;
    assert.equal(d.name, "other__structured");
    assert.equal(d.inputTypeScript, "{ n?: number }");
    assert.equal(d.inputSchema, undefined);
    assert.equal(d.outputSchemaTarget, "data.structuredContent");
    assert.deepEqual(d.also, ["echo__structured"]);
    assert.match(textOf(r).split("\n")[0]!, /^other__structured\(n\?: integer\)/);
    assert.equal(d.signature, undefined, "the signature is in the text only, not twice");
  });

  it("tool_describe takes several names and lists the unknown ones apart", async () => {
    const r = await client.callTool({
      name: "tool_describe",
      arguments: { names: ["echo__echo", "echo__ecoh", "other__structured"] },
    });
    const d = r.structuredContent as {
      tools: { name: string }[];
      unknown: { name: string; suggestions: string[] }[];
    };
    assert.equal(r.isError, undefined);
    assert.deepEqual(d.tools.map((t) => t.name), ["echo__echo", "other__structured"]);
    assert.deepEqual(d.unknown.map((u) => [u.name, u.suggestions[0]]), [[
      "echo__ecoh",
      "echo__echo",
    ]]);
  });

  it("tool_describe refuses name and names together", async () => {
    const r = await client.callTool({
      name: "tool_describe",
      arguments: { name: "echo__echo", names: ["echo__echo"] },
    });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /names must be 1–20 tool names, without name/);
  });

  it("tool_search answers compactly: first sentences in the data, names in the text", async () => {
    const r = await client.callTool({ name: "tool_search", arguments: { query: "echo" } });
    const found = r.structuredContent as { items: Record<string, unknown>[] };
    for (const item of found.items) {
      assert.deepEqual(
        Object.keys(item).filter((k) => k !== "servers").sort(),
        ["description", "name", "score", "server"],
      );
    }
    const text = textOf(r);
    assert.ok(!text.includes("{"), "the text block is not a second copy of the data");
    for (const item of found.items) assert.ok(text.includes(String(item.name)));
    for (const item of found.items) {
      const line = `${item.name} ${item.score}`;
      assert.ok(!text.includes(line), "scores are data, not repeated in the text");
    }
  });

  it("one definition offered by two servers is one hit listing both", async () => {
    const r = await client.callTool({
      name: "tool_search",
      arguments: { query: "return structured content" },
    });
    const found = r.structuredContent as { items: { name: string; servers?: string[] }[] };
    const hits = found.items.filter((i) => i.name.endsWith("__structured"));
    assert.equal(hits.length, 1);
    assert.deepEqual(hits[0]!.servers, ["echo", "other"]);
    assert.match(textOf(r), /__structured \(also on (echo|other)\)/);
  });

  it("tool_search without a query shows the servers, then one server's tool names", async () => {
    const overview = await client.callTool({ name: "tool_search", arguments: {} });
    const servers = (overview.structuredContent as {
      servers: { server: string | null; tools: number; about: string }[];
    }).servers;
    // The gateway's own tools (here `execute`) come last, as server null.
    assert.deepEqual(servers.map((s) => s.server), ["echo", "other", null]);
    assert.equal(servers[1]!.tools, 1);
    assert.match(textOf(overview), /^3 servers, \d+ tools .*: echo, other, \(gateway\)$/);
    const one = await client.callTool({ name: "tool_search", arguments: { server: "other" } });
    assert.deepEqual(one.structuredContent, {
      server: "other",
      names: ["other__structured"],
      total: 1,
      has_more: false,
    });
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
