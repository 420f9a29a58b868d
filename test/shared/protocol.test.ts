/**
 * The gateway's own protocol shapes (`src/shared/protocol.ts`) stay interchangeable with the
 * SDK's: each is assignable to the SDK's type and back (checked by the compiler through
 * `Same`, so a drift fails type-checking), and the run-time helpers behind them answer as the
 * SDK does.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as Sdk from "@modelcontextprotocol/sdk/types.js";
import { LoggingLevelSchema, RELATED_TASK_META_KEY } from "@modelcontextprotocol/sdk/types.js";
import * as Own from "../../src/shared/protocol.ts";
import {
  acceptsElicitation,
  elicitationModes,
  uriMatcher,
} from "../../src/shared/protocol-checks.ts";

/** `true` only when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// Each entry must be `true`: a shape that no longer fits the SDK's makes its entry `false`.
const SAME: {
  tool: Same<Own.Tool, Sdk.Tool>;
  callToolResult: Same<Own.CallToolResult, Sdk.CallToolResult>;
  contentBlock: Same<Own.ContentBlock, Sdk.ContentBlock>;
  callToolParams: Same<Own.CallToolParams, Sdk.CallToolRequest["params"]>;
  prompt: Same<Own.Prompt, Sdk.Prompt>;
  getPromptParams: Same<Own.GetPromptParams, Sdk.GetPromptRequest["params"]>;
  getPromptResult: Same<Own.GetPromptResult, Sdk.GetPromptResult>;
  resource: Same<Own.Resource, Sdk.Resource>;
  resourceTemplate: Same<Own.ResourceTemplate, Sdk.ResourceTemplate>;
  readResourceResult: Same<Own.ReadResourceResult, Sdk.ReadResourceResult>;
  completeParams: Same<Own.CompleteParams, Sdk.CompleteRequest["params"]>;
  completeResult: Same<Own.CompleteResult, Sdk.CompleteResult>;
  task: Same<Own.Task, Sdk.Task>;
  createTaskResult: Same<Own.CreateTaskResult, Sdk.CreateTaskResult>;
  taskPayload: Same<Own.TaskPayload, Sdk.GetTaskPayloadResult>;
  loggingLevel: Same<Own.LoggingLevel, Sdk.LoggingLevel>;
  logMessageParams: Same<Own.LogMessageParams, Sdk.LoggingMessageNotification["params"]>;
  clientCapabilities: Same<Own.ClientCapabilities, Sdk.ClientCapabilities>;
  implementation: Same<Own.Implementation, Sdk.Implementation>;
  jsonrpcNotification: Same<Own.JSONRPCNotification, Sdk.JSONRPCNotification>;
} = {
  tool: true,
  callToolResult: true,
  contentBlock: true,
  callToolParams: true,
  prompt: true,
  getPromptParams: true,
  getPromptResult: true,
  resource: true,
  resourceTemplate: true,
  readResourceResult: true,
  completeParams: true,
  completeResult: true,
  task: true,
  createTaskResult: true,
  taskPayload: true,
  loggingLevel: true,
  logMessageParams: true,
  clientCapabilities: true,
  implementation: true,
  jsonrpcNotification: true,
};

describe("the gateway's protocol shapes", () => {
  it("fit the SDK's both ways (checked when type-checking)", () => {
    assert.ok(Object.values(SAME).every((v) => v === true));
  });

  it("rank the log levels as the SDK does", () => {
    assert.deepEqual([...Own.LOGGING_LEVELS], LoggingLevelSchema.options);
  });

  it("name the related-task `_meta` key as the SDK does", () => {
    assert.equal(Own.RELATED_TASK_META, RELATED_TASK_META_KEY);
  });

  it("match a URI against a template, and only the URIs it expands to", () => {
    const matches = uriMatcher("file:///logs/{name}");
    assert.equal(matches("file:///logs/today"), true);
    assert.equal(matches("file:///other/today"), false);
  });

  it("read an elicitation answer as accepting only when it is well formed and accepts", () => {
    assert.equal(acceptsElicitation({ action: "accept" }), true);
    assert.equal(acceptsElicitation({ action: "decline" }), false);
    assert.equal(acceptsElicitation({ action: "yes" }), false);
    assert.equal(acceptsElicitation(null), false);
  });

  it("read the elicitation modes a client declared, form by default", () => {
    assert.deepEqual(elicitationModes({}), { form: true, url: false });
    assert.deepEqual(elicitationModes({ url: {} }), { form: false, url: true });
    assert.deepEqual(elicitationModes(undefined), { form: false, url: false });
  });
});
