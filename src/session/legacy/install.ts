/**
 * Installs the pass-through handlers on one 2025 session server: resources (with templates and
 * subscriptions), completions, logging, and the client's `roots/list_changed`.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { RootsListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "../../gateway/mod.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import { registerCompletions } from "./completions.ts";
import { registerLogging } from "./logging.ts";
import { registerResources } from "./resources.ts";

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
