import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { useGateway } from "../../_helpers/gateway.ts";
import { execute, EXECUTE_YAML, resultOf } from "./_setup.ts";

describe("execute: tools.search, tools.describe, tools.call", () => {
  let client: Client;
  useGateway(EXECUTE_YAML, (_g, c) => {
    client = c;
  });

  it("is listed with a description that teaches the API with an example", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === "execute");
    assert.ok(tool, "execute is listed");
    assert.match(tool.description ?? "", /tools\.search\{query=/);
    assert.match(tool.description ?? "", /tools\.call\(path, args\)/);
    assert.match(tool.description ?? "", /Example:\n/);
    assert.deepEqual(tool.inputSchema.required, ["code"]);
  });

  it("search items carry the path a call takes, with total and has_more", async () => {
    const r = await resultOf(
      client,
      `local found = tools.search{query = "echo arguments", server = "echo", limit = 2}
       local hit = found.items[1]
       local call = tools.call(hit.path, {text = "hi"})
       return { path = hit.path, name = hit.name, server = hit.server, score = hit.score > 0,
                total = found.total, has_more = found.has_more, next_offset = found.next_offset,
                call = call }`,
    ) as Record<string, unknown>;
    assert.equal(r.path, "echo__echo");
    assert.equal(r.name, "echo__echo");
    assert.equal(r.server, "echo");
    assert.equal(r.score, true);
    assert.ok((r.total as number) > 2);
    assert.equal(r.has_more, true);
    assert.equal(r.next_offset, 2);
    assert.deepEqual(r.call, {
      ok: true,
      data: { content: [{ type: "text", text: '{"text":"hi"}' }] },
    });
  });

  it("describe gives the schema, the signature and where the output schema applies", async () => {
    const r = await resultOf(client, `return tools.describe{path = "echo__structured"}`) as Record<
      string,
      unknown
    >;
    assert.equal(r.path, "echo__structured");
    assert.equal(r.signature, "echo__structured(n?: integer) -> { doubled: integer }");
    assert.equal(r.inputTypeScript, "{ n?: number }");
    assert.equal(r.inputSchema, undefined, "the compact shape replaces the schema");
    assert.equal(r.outputSchemaTarget, "data.structuredContent");
    assert.deepEqual((r.outputSchema as { required: string[] }).required, ["doubled"]);
    const data = await resultOf(
      client,
      `return tools.call("echo__structured", {n = 21}).data.structuredContent`,
    );
    assert.deepEqual(data, { doubled: 42 });
  });

  it("describe of an unknown path answers an error with suggestions", async () => {
    const r = await resultOf(client, `return tools.describe{path = "echo__structure"}`);
    assert.deepEqual((r as { error: { code: string } }).error.code, "tool_not_found");
    assert.ok(
      (r as { error: { suggestions: string[] } }).error.suggestions.includes("echo__structured"),
    );
  });

  it('tools["server__tool"](args) is shorthand for tools.call', async () => {
    const r = await resultOf(
      client,
      `return { tools["echo__echo"]{text = "a"}, tools.echo__structured{n = 2}.data.structuredContent }`,
    );
    assert.deepEqual(r, [
      { ok: true, data: { content: [{ type: "text", text: '{"text":"a"}' }] } },
      { doubled: 4 },
    ]);
  });

  it("search, call and describe are reserved, and __ names are no shorthands", async () => {
    const r = await resultOf(
      client,
      `return { type(tools.search), tools.__index == nil, tools.__call == nil, tools[1] == nil }`,
    );
    assert.deepEqual(r, ["function", true, true, true]);
  });

  it("listing tools with pairs raises a clear error at the script's line", async () => {
    const r = await execute(
      client,
      `local n = 0\nfor k in pairs(tools) do n = n + 1 end\nreturn n`,
    );
    assert.equal(r.isError, true);
    assert.match(
      r.structured.error!.message,
      /tools cannot be listed: find tools with tools\.search/,
    );
    assert.equal(r.structured.error!.line, 2);
    assert.equal(await resultOf(client, `return next(tools) == nil`), true);
  });

  it("emitted values arrive in order and print output is captured", async () => {
    const r = await execute(
      client,
      `print("step", 1) emit({ n = 1 }) emit("two") print("done") return "end"`,
    );
    assert.equal(r.isError, false);
    assert.deepEqual(r.structured.emitted, [{ n: 1 }, "two"]);
    assert.equal(r.structured.output, "step\t1\ndone\n");
    assert.equal(r.structured.result, "end");
    assert.deepEqual(JSON.parse(r.text), r.structured);
  });

  it("the text block is the structured content serialised, as MCP Inspector checks it", async () => {
    const r = await execute(
      client,
      `tools.call("echo__echo", {}) emit(1) print("p") return {a = 1}`,
    );
    assert.equal(r.isError, false, r.text);
    // Inspector's check, verbatim in effect: one text block whose JSON equals, key order too.
    assert.deepEqual(r.content.map((c) => c.type), ["text"]);
    assert.equal(JSON.stringify(JSON.parse(r.text)), JSON.stringify(r.structured));
    assert.deepEqual(Object.keys(r.structured), ["result", "emitted", "output", "calls", "stats"]);
    assert.equal(r.structured.calls.length, 1);
  });

  it("every property of the output schema has a validation keyword (Inspector --strict)", async () => {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === "execute")!.outputSchema as {
      properties: Record<string, Record<string, unknown>>;
    };
    for (const [name, property] of Object.entries(schema.properties)) {
      assert.ok("type" in property || "anyOf" in property || "enum" in property, name);
    }
    assert.deepEqual(
      schema.properties.result!.type,
      ["object", "array", "string", "number", "boolean", "null"],
    );
  });

  it("the trace lists every operation with its path or query, outcome and duration", async () => {
    const r = await execute(
      client,
      `tools.search{query = "echo"} tools.describe{path = "echo__echo"}
       tools.call("echo__echo", {}) tools.call("echo__fail") return 1`,
    );
    const calls = r.structured.calls.map(({ duration_ms, ...rest }) => {
      assert.equal(typeof duration_ms, "number");
      return rest;
    });
    assert.deepEqual(calls, [
      { operation: "search", query: "echo", ok: true },
      { operation: "describe", path: "echo__echo", ok: true },
      { operation: "call", path: "echo__echo", ok: true },
      { operation: "call", path: "echo__fail", ok: false, error: "tool_error" },
    ]);
    assert.equal(r.structured.stats.operations, 4);
    assert.ok(r.structured.stats.bytes_transferred > 0);
    assert.ok(r.structured.stats.elapsed_ms >= 0);
  });
});

describe("execute: tools.call error codes (it never raises)", () => {
  let client: Client;
  useGateway(EXECUTE_YAML, (_g, c) => {
    client = c;
  });

  const callResult = async (code: string) =>
    await resultOf(client, code) as {
      ok: boolean;
      error: { code: string; message: string; suggestions?: string[] };
      data?: { isError?: boolean };
    };

  it("an isError result is tool_error with its text as message and the result as data", async () => {
    const r = await callResult(`return tools.call("echo__fail", {})`);
    assert.equal(r.ok, false);
    assert.deepEqual(r.error, { code: "tool_error", message: "this tool always fails" });
    assert.equal(r.data?.isError, true);
  });

  it("an unknown path is tool_not_found with suggestions", async () => {
    const r = await callResult(`return tools.call("echo__ecko", {})`);
    assert.equal(r.error.code, "tool_not_found");
    assert.match(r.error.message, /unknown tool "echo__ecko"/);
    assert.ok(r.error.suggestions?.includes("echo__echo"));
  });

  it("arguments JSON cannot carry are invalid_arguments naming them, traced as failed calls", async () => {
    const run = await execute(
      client,
      `return { tools.call("echo__echo", { f = print }), tools.call("echo__echo", 42),
                tools.call("echo__echo", "{not json"), tools.call(7) }`,
    );
    const r = run.structured.result as Array<
      { ok: boolean; error: { code: string; message: string } }
    >;
    assert.deepEqual(
      run.structured.calls.map((c) => [c.path, c.error]),
      [
        ["echo__echo", "invalid_arguments"],
        ["echo__echo", "invalid_arguments"],
        ["echo__echo", "invalid_arguments"],
        ["7", "invalid_arguments"],
      ],
    );
    assert.deepEqual(r.map((x) => x.error.code), Array(4).fill("invalid_arguments"));
    assert.match(r[0]!.error.message, /args\.f is a function/);
    assert.match(r[1]!.error.message, /args must be a table or a JSON string, not a number/);
    assert.match(r[2]!.error.message, /args is not JSON/);
    assert.match(r[3]!.error.message, /path must be a string/);
  });

  it("an upstream that crashes during the call is upstream_error", async () => {
    const r = await callResult(`return tools.call("crashy__crash", {})`);
    assert.equal(r.ok, false);
    assert.equal(r.error.code, "upstream_error");
    assert.match(r.error.message, /closed the connection/);
  });

  it("an upstream past its own call timeout is timeout", async () => {
    const r = await callResult(`return tools.call("late__hang", {})`);
    assert.equal(r.error.code, "timeout");
    assert.match(r.error.message, /did not answer within 1000ms/);
  });

  it("calling execute from inside a script is forbidden", async () => {
    const r = await callResult(`return tools.call("execute", { code = "return 1" })`);
    assert.equal(r.error.code, "forbidden");
  });
});
