import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { LazySchemaValidator } from "../../src/shared/schema-validator.ts";

const ECHO = fileURLToPath(new URL("../fixtures/servers/echo.mjs", import.meta.url));

describe("output schemas compile on first use", () => {
  it("listing a schema compiles nothing; the first check does", () => {
    // Ajv refuses an unknown type when it compiles: a throw here means it compiled.
    const validate = new LazySchemaValidator().getValidator({ type: "no-such-type" } as never);
    assert.throws(() => validate({}));
  });

  it("gives the SDK default's verdicts", () => {
    const schema = {
      type: "object",
      properties: { doubled: { type: "integer" }, at: { type: "string", format: "date-time" } },
      required: ["doubled"],
    } as const;
    const lazy = new LazySchemaValidator().getValidator(schema);
    const eager = new AjvJsonSchemaValidator().getValidator(schema);
    for (
      const value of [
        { doubled: 2 },
        { doubled: 0.5 },
        {},
        { doubled: 1, at: "2026-12-01T10:00:00Z" },
        { doubled: 1, at: "yesterday" },
      ]
    ) {
      assert.equal(lazy(value).valid, eager(value).valid, JSON.stringify(value));
    }
    assert.equal(lazy({ doubled: 0.5 }).errorMessage, eager({ doubled: 0.5 }).errorMessage);
  });
});

describe("an SDK client with the lazy validator, against a real stdio server", () => {
  let client: Client;
  before(async () => {
    client = new Client({ name: "t", version: "1" }, {
      jsonSchemaValidator: new LazySchemaValidator(),
    });
    await client.connect(
      new StdioClientTransport({ command: "node", args: [ECHO], stderr: "ignore" }),
    );
    await client.listTools();
  });
  after(() => client.close());

  it("accepts structured content that matches the tool's output schema", async () => {
    const r = await client.callTool({ name: "structured", arguments: { n: 2 } });
    assert.deepEqual(r.structuredContent, { doubled: 4 });
  });

  it("still refuses structured content that does not match it", async () => {
    // 0.25 doubled is 0.5, not the integer the schema promises.
    await assert.rejects(
      client.callTool({ name: "structured", arguments: { n: 0.25 } }),
      (err: unknown) => err instanceof McpError && err.code === ErrorCode.InvalidParams,
    );
  });
});
