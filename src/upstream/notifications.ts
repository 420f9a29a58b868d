/**
 * @module What an upstream tells beside its answers, handed to the core as plain callbacks of
 * plain params: the SDK's notification schemas (which the client checks each notification
 * against before a handler sees it) stay on this side of the boundary, so the gateway core
 * names methods and shapes, never an SDK schema.
 */
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type TaskStatusNotification,
  TaskStatusNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamClient } from "./client.ts";

/** What the core listens to on one upstream client; each absent one is left unhandled. */
export interface UpstreamNotices {
  /** `notifications/message`: a log message, its params as checked. */
  log?: (params: LogParams) => void;
  /** `notifications/resources/updated`. */
  resourceUpdated?: (params: { uri: string; [key: string]: unknown }) => void;
  /** `notifications/tools/list_changed` and `notifications/prompts/list_changed`. */
  listChanged?: () => void;
  /** `notifications/resources/list_changed`. */
  resourceListChanged?: () => void;
  /** `notifications/tasks/status`: a task's new status, its params as checked. */
  taskStatus?: (params: TaskStatusParams) => void;
}

/** A log message's params (`level`, `logger`, `data`). */
export type LogParams = LoggingMessageNotification["params"];

/** A task status notification's params (the task, with any further fields kept). */
export type TaskStatusParams = TaskStatusNotification["params"];

/** Registers `notices` on `client` (replacing what was registered for the same methods). */
export function listenTo(client: UpstreamClient, notices: UpstreamNotices): void {
  const { log, resourceUpdated, listChanged, resourceListChanged, taskStatus } = notices;
  if (log) client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => log(n.params));
  if (resourceUpdated) {
    client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => resourceUpdated(n.params),
    );
  }
  if (listChanged) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, listChanged);
    client.setNotificationHandler(PromptListChangedNotificationSchema, listChanged);
  }
  if (resourceListChanged) {
    client.setNotificationHandler(ResourceListChangedNotificationSchema, resourceListChanged);
  }
  if (taskStatus) {
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => taskStatus(n.params));
  }
}
