/**
 * @module Full protocol pass-through: resources (with templates and subscriptions), completions,
 * logging, `list_changed`, and the server-to-client requests sampling, elicitation and roots,
 * routed to the one session they belong to or refused (see server-requests.ts).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { RootsListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "../gateway.ts";
import { registerCompletions } from "./completions.ts";
import type { SessionLink } from "./link.ts";
import { registerLogging } from "./logging.ts";
import { registerResources } from "./resources.ts";

export { PassthroughHub } from "./hub.ts";
export { TaskRouter } from "./tasks.ts";
export { registerTasks, relayTaskStatus, tasksCapability } from "./task-handlers.ts";
export { SessionLink } from "./link.ts";
export type { ResourceSubscriber } from "./link.ts";
export { mostVerbose, relayLog, severity } from "./logging.ts";
export {
  buildResourceIndex,
  exposeUri,
  resolveResource,
  resolveTemplate,
  REWRITE_SCHEME,
  rewriteTemplate,
  rewriteUri,
  unrewriteUri,
} from "./resource-index.ts";
export type { ResourceIndex, ResourceTarget } from "./resource-index.ts";
export { missingCapability } from "./server-requests.ts";

/** Installs every pass-through handler on one session server. */
export function installPassthrough(
  server: Server,
  gateway: Gateway,
  link: SessionLink,
  pageSize?: number,
): void {
  registerResources(server, gateway, link, pageSize);
  registerCompletions(server, gateway, link);
  registerLogging(server, gateway.passthrough, link);
  // A client's roots changed: only this session's own processes may hear of it (and then ask
  // for them); a shared process never sees a client's roots.
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    gateway.passthrough.touch(link);
    for (const u of gateway.pool.isolated.of(link)) {
      if (u.config.roots === "client") void u.client?.sendRootsListChanged().catch(() => {});
    }
  });
}
