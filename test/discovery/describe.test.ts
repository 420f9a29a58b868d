import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { describeText, describeTool, OUTPUT_SCHEMA_TARGET } from "../../src/discovery/mod.ts";
import type { DescribableTool } from "../../src/discovery/mod.ts";

const searchIssues: DescribableTool = {
  name: "github__search_issues",
  server: "github",
  description: "Search issues",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "Search text" },
      limit: { type: "integer", default: 10 },
      state: { type: "string", enum: ["open", "closed"] },
      tags: { type: "array", items: { type: "string" } },
    },
    required: ["query"],
  },
};

function withInput(inputSchema: object, extra: Partial<DescribableTool> = {}): DescribableTool {
  return { name: "t", server: "s", description: "d", inputSchema, ...extra };
}

describe("tool description", () => {
  test("the signature shows required, optional, defaulted and enum params in order", () => {
    assert.equal(
      describeTool(searchIssues).signature,
      'github__search_issues(query: string, limit?: integer = 10, state?: "open" | "closed", tags?: string[])',
    );
  });

  test("inputTypeScript is a compact TypeScript shape", () => {
    assert.equal(
      describeTool(searchIssues).inputTypeScript,
      '{ query: string; limit?: number; state?: "open" | "closed"; tags?: string[] }',
    );
  });

  test("name, server and description pass through; the input schema is not repeated", () => {
    const d = describeTool(searchIssues);
    assert.equal("inputSchema" in d, false);
    assert.deepEqual([d.name, d.server, d.description], [
      "github__search_issues",
      "github",
      "Search issues",
    ]);
  });

  test("nested objects render one level deep and deeper ones as object", () => {
    const d = describeTool(withInput({
      type: "object",
      properties: {
        filter: {
          type: "object",
          properties: { state: { const: "open" }, deep: { type: "object", properties: { x: {} } } },
          required: ["state"],
        },
      },
    }));
    assert.equal(d.inputTypeScript, '{ filter?: { state: "open"; deep?: object } }');
    assert.equal(d.signature, 't(filter?: { state: "open", deep?: object })');
  });

  test("arrays of objects and of unions render with their item type", () => {
    const d = describeTool(withInput({
      type: "object",
      properties: {
        entities: {
          type: "array",
          items: { type: "object", properties: { name: { type: "string" } } },
        },
        ids: { type: "array", items: { type: ["string", "integer"] } },
      },
    }));
    assert.equal(
      d.inputTypeScript,
      "{ entities?: { name?: string }[]; ids?: (string | number)[] }",
    );
  });

  test("nullable types and anyOf of simple types become unions", () => {
    const d = describeTool(withInput({
      type: "object",
      properties: {
        note: { type: ["string", "null"] },
        when: { anyOf: [{ type: "string" }, { type: "number" }] },
      },
    }));
    assert.equal(d.inputTypeScript, "{ note?: string | null; when?: string | number }");
  });

  test("a free-form map renders as a Record", () => {
    const d = describeTool(withInput({
      type: "object",
      properties: {
        env: { type: "object", additionalProperties: { type: "string" } },
        meta: { type: "object" },
      },
    }));
    assert.equal(
      d.inputTypeScript,
      "{ env?: Record<string, string>; meta?: Record<string, unknown> }",
    );
  });

  test("keys that are not identifiers are quoted", () => {
    const d = describeTool(
      withInput({ type: "object", properties: { "x-api-key": { type: "string" } } }),
    );
    assert.equal(d.inputTypeScript, '{ "x-api-key"?: string }');
    assert.equal(d.signature, 't("x-api-key"?: string)');
  });

  test("a tool without params has an empty signature and shape", () => {
    const d = describeTool(
      withInput({
        type: "object",
        properties: {},
        $schema: "http://json-schema.org/draft-07/schema#",
      }),
    );
    assert.equal(d.signature, "t()");
    assert.equal(d.inputTypeScript, "{}");
  });

  test("a schema using $ref falls back to the formatted schema and names the ref in the signature", () => {
    const schema = {
      type: "object",
      $defs: { Point: { type: "object", properties: { x: { type: "number", description: "X" } } } },
      properties: { at: { $ref: "#/$defs/Point", description: "Where" } },
      required: ["at"],
    };
    const d = describeTool(withInput(schema));
    assert.equal(d.inputTypeScript, JSON.stringify(schema));
    assert.equal(d.signature, "t(at: Point)");
    assert.equal(d.inputGuidance, undefined);
  });

  test("a schema using oneOf falls back to the formatted schema", () => {
    const schema = {
      type: "object",
      properties: { v: { oneOf: [{ type: "string" }, { type: "integer" }] } },
    };
    const d = describeTool(withInput(schema));
    assert.equal(d.inputTypeScript, JSON.stringify(schema));
    assert.equal(d.signature, "t(v?: string | integer)");
  });

  test("long defaults are shortened in the signature", () => {
    const d = describeTool(
      withInput({
        type: "object",
        properties: { s: { type: "string", default: "x".repeat(100) } },
      }),
    );
    assert.ok(d.signature.length < 70, d.signature);
    assert.ok(d.signature.endsWith("…)"));
  });
});

describe("tool description guidance and output", () => {
  test("inputGuidance keeps descriptions, formats and ranges of documented params only", () => {
    const d = describeTool(withInput({
      type: "object",
      properties: {
        query: { type: "string", description: "Search text" },
        since: { type: "string", format: "date-time" },
        limit: { type: "integer", minimum: 1, maximum: 100, description: "Page size" },
        plain: { type: "string" },
        filter: {
          type: "object",
          properties: { label: { type: "string", description: "Label name" } },
        },
        items: {
          type: "array",
          items: { type: "object", properties: { id: { description: "Item id" } } },
        },
      },
    }));
    assert.deepEqual(d.inputGuidance, {
      query: "Search text",
      since: "format: date-time",
      limit: "Page size (>= 1, <= 100)",
      "filter.label": "Label name",
      "items[].id": "Item id",
    });
  });

  test("the text is the signature and the first sentence; the whole description is data", () => {
    const d = describeTool(withInput({}, {
      description: "Take a screenshot of the page. Use the snapshot tool for actions. Ask first.",
    }));
    assert.equal(describeText(d), "t()\nTake a screenshot of the page.");
    assert.match(d.description, /Ask first\.$/);
  });

  test("inputGuidance is absent when no param is documented", () => {
    const d = describeTool(withInput({ type: "object", properties: { a: { type: "string" } } }));
    assert.equal("inputGuidance" in d, false);
  });

  test("an output schema is returned untouched with its target and shown in the signature", () => {
    const outputSchema = {
      type: "object",
      properties: {
        total: { type: "integer" },
        items: { type: "array", items: { type: "object" } },
      },
      required: ["total"],
    };
    const d = describeTool({ ...searchIssues, outputSchema });
    assert.equal(d.outputSchema, outputSchema);
    assert.equal(d.outputSchemaTarget, "data.structuredContent");
    assert.equal(OUTPUT_SCHEMA_TARGET, "data.structuredContent");
    assert.ok(d.signature.endsWith(") -> { total: integer, items?: object[] }"), d.signature);
  });

  test("without an output schema both output fields are absent and the signature has no arrow", () => {
    const d = describeTool(searchIssues);
    assert.equal("outputSchema" in d, false);
    assert.equal("outputSchemaTarget" in d, false);
    assert.ok(!d.signature.includes("->"));
  });

  test("an output schema with unsupported constructs stays intact", () => {
    const outputSchema = {
      oneOf: [{ $ref: "#/$defs/A" }, { type: "null" }],
      $defs: { A: { type: "object" } },
    };
    const d = describeTool({ ...searchIssues, outputSchema });
    assert.deepEqual(d.outputSchema, {
      oneOf: [{ $ref: "#/$defs/A" }, { type: "null" }],
      $defs: { A: { type: "object" } },
    });
    assert.ok(d.signature.endsWith(" -> A | null"), d.signature);
  });
});
