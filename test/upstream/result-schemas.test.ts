/**
 * The core names the method; the upstream side holds the schema its answer must pass: each
 * method the core sends beside tool calls is checked as that method's result, so an answer of
 * another shape is refused.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resultSchemaOf, TASK_CREATED_SCHEMA } from "../../src/upstream/result-schemas.ts";

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

describe("the result schema of each method the core sends", () => {
  it("a prompt answers messages, a read answers contents", () => {
    assert.ok(ok(resultSchemaOf("prompts/get"), { messages: [] }));
    assert.ok(!ok(resultSchemaOf("prompts/get"), { contents: [] }));
    assert.ok(ok(resultSchemaOf("resources/read"), { contents: [] }));
    assert.ok(!ok(resultSchemaOf("resources/read"), { messages: [] }));
  });

  it("a completion answers values; a task request answers a task", () => {
    assert.ok(ok(resultSchemaOf("completion/complete"), { completion: { values: ["a"] } }));
    assert.ok(!ok(resultSchemaOf("completion/complete"), { values: ["a"] }));
    const task = {
      taskId: "t",
      status: "working",
      createdAt: "2026-01-01T00:00:00Z",
      lastUpdatedAt: "2026-01-01T00:00:00Z",
      ttl: null,
    };
    assert.ok(ok(resultSchemaOf("tasks/get"), task));
    assert.ok(!ok(resultSchemaOf("tasks/get"), { taskId: "t" }));
    assert.ok(ok(TASK_CREATED_SCHEMA, { task }));
    assert.ok(!ok(TASK_CREATED_SCHEMA, { content: [] }), "a tool result is not a task created");
  });
});
