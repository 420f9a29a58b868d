/**
 * @module The result schema of each request the gateway core sends an upstream beside its tool
 * calls: the SDK's schemas stay on this side of the boundary, and the core names the method
 * (its answer is checked against the schema here, by the connection's caller).
 */
import {
  CancelTaskResultSchema,
  CompleteResultSchema,
  CreateTaskResultSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  ReadResourceResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

const RESULT_SCHEMAS = {
  "prompts/get": GetPromptResultSchema,
  "resources/read": ReadResourceResultSchema,
  "resources/subscribe": EmptyResultSchema,
  "resources/unsubscribe": EmptyResultSchema,
  "completion/complete": CompleteResultSchema,
  "logging/setLevel": EmptyResultSchema,
  "tasks/get": GetTaskResultSchema,
  "tasks/cancel": CancelTaskResultSchema,
  "tasks/result": GetTaskPayloadResultSchema,
  "tasks/list": ListTasksResultSchema,
} as const;

/** A method whose result the core has checked. */
export type CheckedMethod = keyof typeof RESULT_SCHEMAS;

/** The schema an upstream's answer to `method` must pass. */
export function resultSchemaOf<M extends CheckedMethod>(method: M): (typeof RESULT_SCHEMAS)[M] {
  return RESULT_SCHEMAS[method];
}

/** What a task-augmented `tools/call` answers: the task created, not the tool's result. */
export const TASK_CREATED_SCHEMA = CreateTaskResultSchema;
