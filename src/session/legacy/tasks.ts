/**
 * The task requests of one 2025 session (`tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`), wired to the gateway's task router.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { callerOfRequest } from "./request-caller.ts";
import { onWire } from "../../shared/errors.ts";
import type { Gateway } from "../../gateway/mod.ts";
import { enterSessionCall } from "./enter.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";

/**
 * The tasks capability the gateway offers: present when some upstream supports tasks — a
 * server's shared connection, or some user's own connection of a per-user server (which says
 * what the server's software does, nothing of that user's).
 */
export function tasksCapability(gateway: Gateway): ServerCapabilities["tasks"] | undefined {
  const pool = gateway.pool;
  const all = [...pool.all(), ...[...pool.userConnections().values()].flat()];
  const any = all.some((u) => u.client?.getServerCapabilities()?.tasks);
  return any ? { list: {}, cancel: {}, requests: { tools: { call: {} } } } : undefined;
}

/** Installs the task handlers on a session server that declared the tasks capability. */
export function registerTasks(server: Server, gateway: Gateway, link: SessionLink): void {
  const tasks = gateway.tasks;
  server.setRequestHandler(
    GetTaskRequestSchema,
    (req, extra) =>
      onWire(() => tasks.get(req.params.taskId, callerOfRequest(extra, link.caller), extra.signal)),
  );
  server.setRequestHandler(
    GetTaskPayloadRequestSchema,
    (req, extra) =>
      onWire(() =>
        tasks.result(req.params.taskId, enterSessionCall(link, req.params._meta, extra))
      ),
  );
  server.setRequestHandler(
    ListTasksRequestSchema,
    (_req, extra) => onWire(() => tasks.list(callerOfRequest(extra, link.caller), extra.signal)),
  );
  server.setRequestHandler(
    CancelTaskRequestSchema,
    (req, extra) =>
      onWire(() =>
        tasks.cancel(req.params.taskId, callerOfRequest(extra, link.caller), extra.signal)
      ),
  );
}
