/**
 * Resource requests of one session: the aggregated `resources/list` and
 * `resources/templates/list` (paged by the gateway), `resources/read` routed by URI, and
 * `resources/subscribe` / `unsubscribe` shared through the hub. Each session sees only the
 * resources of the servers its token reaches; a URI of another server is answered as unknown.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "../../gateway/mod.ts";
import { enterSessionCall } from "./enter.ts";
import {
  listResources,
  listTemplates,
  readResource,
  resourceTarget,
} from "../../gateway/operations.ts";
import { page } from "../../gateway/paging.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import { callerOfRequest } from "./request-caller.ts";
import { onWire } from "../../shared/errors.ts";

/** Installs the resource handlers on a session server. */
export function registerResources(
  server: Server,
  gateway: Gateway,
  link: SessionLink,
  pageSize: number | undefined,
): void {
  const hub = gateway.passthrough;

  server.setRequestHandler(ListResourcesRequestSchema, (req, extra) =>
    onWire(() => {
      hub.touch(link);
      const visible = listResources(gateway, callerOfRequest(extra, link.caller));
      const { items, nextCursor } = page(visible, req.params?.cursor, pageSize);
      return nextCursor ? { resources: items, nextCursor } : { resources: items };
    }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, (req, extra) =>
    onWire(() => {
      hub.touch(link);
      const visible = listTemplates(gateway, callerOfRequest(extra, link.caller));
      const { items, nextCursor } = page(visible, req.params?.cursor, pageSize);
      return nextCursor ? { resourceTemplates: items, nextCursor } : { resourceTemplates: items };
    }));

  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) =>
    onWire(() => {
      hub.touch(link);
      return readResource(gateway, req.params, enterSessionCall(link, req.params._meta, extra));
    }));

  server.setRequestHandler(SubscribeRequestSchema, (req, extra) =>
    onWire(async () => {
      hub.touch(link);
      await hub.subscribe(
        link,
        resourceTarget(gateway, req.params.uri, callerOfRequest(extra, link.caller)),
        req.params.uri,
      );
      return {};
    }));

  server.setRequestHandler(UnsubscribeRequestSchema, (req, extra) =>
    onWire(async () => {
      hub.touch(link);
      await hub.unsubscribe(
        link,
        resourceTarget(gateway, req.params.uri, callerOfRequest(extra, link.caller)),
      );
      return {};
    }));
}
